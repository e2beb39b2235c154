// Validating, staging and reading account import processes (issue 19's synchronous half). The queued
// creation itself is create-account.ts.
import Decimal from 'decimal.js';
import type { Database, Sql } from '../platform/db';
import { inTransaction } from '../platform/db';
import { NotFoundError, supplierNotFound, ValidationError, type FieldError } from '../platform/errors';
import { formatDateTime, formatMoney } from '../platform/fields';
import { attrOf, isStorableText, parseOrThrow } from '../platform/validation';
import {
  EnergyAccountSchema,
  meterPointsOf,
  V2ValidateRequest,
  tariffCodesOf,
  type EnergyAccount,
} from './energy-account';
import * as repo from './account-import.repository';
import {
  boundedErrors,
  checkAccountSize,
  checkCreationCap,
  creationInProgress,
  refuseOverCap,
  type CreationCap,
} from './account-bounds';

/** 400 once the process has an account: the contract's answer, with the account's number. */
export class AlreadyImportedError extends ValidationError {
  constructor(
    readonly externalAccountNumber: string,
    readonly platformAccountNumber: string,
  ) {
    const detail = `The account import process with the account number ${externalAccountNumber} has already been imported.`;
    super(
      [{ attr: 'non_field_errors', code: 'account_import_process_already_imported', detail }],
      detail,
      'account_import_process_already_imported',
    );
  }

  override toBody(): object {
    return {
      ...super.toBody(),
      external_account_number: this.externalAccountNumber,
      platform_account_number: this.platformAccountNumber,
    };
  }
}

/** 400 import_supplier_migration_not_ongoing, as every write answers for a Paused or Complete supplier. */
export function migrationNotOngoing(supplierCode: string, status: string, attr = 'import_supplier'): ValidationError {
  return new ValidationError(
    [
      {
        attr,
        code: 'import_supplier_migration_not_ongoing',
        detail: `Migration for import supplier ${supplierCode} is ${status}; it accepts no data.`,
      },
    ],
    `Migration for import supplier ${supplierCode} is ${status}.`,
    'import_supplier_migration_not_ongoing',
  );
}

/**
 * The checks of an account against what the database holds, all made before answering so one 400
 * names every fault: the operations team, every tariff code, every meter point another live account
 * of the supplier supplies.
 */
export async function checkAgainstDatabase(db: Sql, a: EnergyAccount): Promise<FieldError[]> {
  // One statement: in the creation job's transaction every round trip holds the group's locks longer.
  return faultsOf(a, await repo.databaseFacts(db, refsOf(a)));
}

/** What checkAgainstDatabase looks up of an account. */
function refsOf(a: EnergyAccount) {
  return {
    team: a.operations_team_name,
    productCodes: tariffCodesOf(a).map((c) => c.code),
    supplierCode: a.import_supplier,
    identifiers: meterPointsOf(a).map((p) => p.identifier),
    external: a.external_account_number,
  };
}

/** The faults the database's facts show in an account (checkAgainstDatabase). */
function faultsOf(a: EnergyAccount, facts: repo.DatabaseFacts): FieldError[] {
  const errors: FieldError[] = [];
  const at = (path: (string | number)[]) => attrOf(path);
  const codes = tariffCodesOf(a);
  const points = meterPointsOf(a);
  const { teamExists, missingProducts: missing, productSupply, takenMeterPoints: taken } = facts;
  if (!teamExists) {
    errors.push({
      attr: at(['operations_team_name']),
      code: 'operations_team_name_does_not_exist',
      detail: `Operations team "${a.operations_team_name}" does not exist.`,
    });
  }
  for (const c of codes) {
    if (missing.has(c.code)) {
      errors.push({
        attr: at(c.path),
        code: 'tariff_code_not_found',
        detail: `Tariff code "${c.code}" is not a product.`,
      });
    }
    const supply = productSupply.get(c.code);
    if (supply !== undefined && supply !== c.supplyType) {
      errors.push({
        attr: at(c.path),
        code: 'tariff_type_does_not_match_meter_point_type',
        detail: `Tariff code "${c.code}" is a ${supply} product; its meter point is ${c.supplyType}.`,
      });
    }
  }
  for (const p of points) {
    const other = taken.get(p.identifier);
    if (other !== undefined) {
      errors.push({
        attr: at(p.path),
        code: 'supply_point_already_on_live_account',
        detail: `Meter point ${p.identifier} is already supplied on another live account of this supplier (${other}).`,
      });
    }
  }
  return errors;
}

function throwIfAny(errors: FieldError[]): void {
  const first = errors[0];
  if (first) throw boundedErrors(new ValidationError(errors, `${first.attr}: ${first.detail}`));
}

/**
 * Parses the body (after its size bound, so a huge account costs no validation), then finds the
 * supplier (404 when the organisation may not use it). A 400 lists at most MAX_LISTED_ERRORS faults.
 */
async function parseVisible(db: Database, organisationId: number, body: unknown) {
  const account = parseAccount(body);
  const status = await repo.findVisibleSupplier(db.pool, organisationId, account.import_supplier);
  if (status === undefined) throw supplierNotFound();
  return { account, status };
}

/** The account's fields and cross-checks, after its size bound (413): the validated account, or a bounded 400. */
function parseAccount(body: unknown): EnergyAccount {
  checkAccountSize(body);
  try {
    return parseOrThrow(EnergyAccountSchema, body);
  } catch (err) {
    throw err instanceof ValidationError ? boundedErrors(err) : err;
  }
}

/**
 * POST /v1/data-import/validate-account/ and the rules every staging and creation runs: the account's
 * fields and cross-checks, then its supplier (404 when not the organisation's), then the database's
 * checks. Answers the validated account.
 */
export async function validateAccount(
  db: Database,
  organisationId: number,
  body: unknown,
): Promise<{ account: EnergyAccount; supplierStatus: string }> {
  const { account, status } = await parseVisible(db, organisationId, body);
  await refuseImported(db, account);
  throwIfAny(await checkAgainstDatabase(db.pool, account));
  return { account, supplierStatus: status };
}

/** Validating an account that is already imported is 400 account_import_process_already_imported (the contract's example). */
async function refuseImported(db: Database, a: EnergyAccount): Promise<void> {
  const number = await repo.findImportedNumber(db.pool, a.import_supplier, a.external_account_number);
  if (number !== undefined) throw new AlreadyImportedError(a.external_account_number, number);
}

/**
 * POST /v2/data-import/accounts/validate/: the same rules on `payload`. As in the published contract's
 * example, attrs name fields of the account (`customers.0.landline`); only a missing or malformed
 * `payload` itself is reported at `payload`.
 */
export async function validateV2(db: Database, organisationId: number, body: unknown): Promise<EnergyAccount> {
  const { account } = await parseVisible(db, organisationId, v2Payload(body));
  await refuseImported(db, account);
  throwIfAny(await checkAgainstDatabase(db.pool, account));
  return account;
}

/** A v2 body's `payload`; a missing or malformed one is reported at `payload` (the account's own faults at its fields). */
function v2Payload(body: unknown): unknown {
  const payload = (body as { payload?: unknown } | null)?.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) parseOrThrow(V2ValidateRequest, body);
  return payload;
}

/**
 * The validated account as JSON: decimals as the other endpoints echo money (at least two decimal
 * places, no digit lost), datetimes in the spec's format.
 */
export function accountJson(a: EnergyAccount): string {
  return JSON.stringify(a, function (this: Record<string, unknown>, key: string, value: unknown) {
    // `value` has been through toJSON already; the holder still has the Decimal or Date itself.
    const raw = this[key];
    if (raw instanceof Decimal) return formatMoney(raw);
    if (raw instanceof Date) return formatDateTime(raw);
    return value;
  });
}

/** What staging checks before it writes (a v2 dry run stops here): the account, validated. */
async function checkStageable(db: Database, organisationId: number, body: unknown): Promise<EnergyAccount> {
  const { account, status } = await parseVisible(db, organisationId, body);
  if (status !== 'Ongoing') throw migrationNotOngoing(account.import_supplier, status);
  throwIfAny(await checkAgainstDatabase(db.pool, account));
  return account;
}

/**
 * checkStageable for a v2 schedule, whose cap on unanswered schedules answers first (429): the cap,
 * the supplier and the database's checks are one statement after the account's fields pass. A body
 * that does not pass is counted against the cap first, so it answers what it answered before.
 */
export async function checkSchedulable(
  db: Database,
  organisationId: number,
  payload: unknown,
  cap: CreationCap,
): Promise<EnergyAccount> {
  let account: EnergyAccount;
  try {
    account = parseAccount(v2Payload({ payload }));
  } catch (err) {
    await checkCreationCap(db.pool, organisationId, cap.endpoint, cap.cap, cap.code);
    throw err;
  }
  const facts = await repo.databaseFacts(db.pool, refsOf(account), { organisationId, ...cap });
  refuseOverCap(facts.unanswered ?? 0, cap);
  const status = facts.supplierStatus;
  if (status === undefined) throw supplierNotFound();
  if (status !== 'Ongoing') throw migrationNotOngoing(account.import_supplier, status);
  throwIfAny(faultsOf(account, facts));
  return account;
}

export interface StageResult {
  created: boolean;
  body: { external_account_number: string; import_supplier_code: string };
}

/**
 * POST /v1/data-import/account-import-process/create-or-update/: validates as validate-account does,
 * then stages the account (201 the first time, 200 after), until its account is created (400
 * account_import_process_already_imported). A Paused or Complete supplier stages nothing.
 */
export async function stageAccount(
  db: Database,
  organisationId: number,
  body: unknown,
  now: Date,
): Promise<StageResult> {
  const account = await checkStageable(db, organisationId, body);
  const staged = await inTransaction(db, (tx) =>
    repo.stageProcess(tx, account.import_supplier, account.external_account_number, accountJson(account), now),
  );
  if (staged.platformAccountNumber !== undefined) {
    throw new AlreadyImportedError(account.external_account_number, staged.platformAccountNumber);
  }
  if (staged.inProgress) throw creationInProgress();
  return {
    created: staged.created,
    body: { external_account_number: account.external_account_number, import_supplier_code: account.import_supplier },
  };
}

/** GET /v2/data-import/accounts/<supplier>/<external_identifier>/. */
export async function getImportStatus(
  db: Database,
  organisationId: number,
  supplierCode: string,
  externalIdentifier: string,
) {
  const storable = isStorableText(supplierCode) && isStorableText(externalIdentifier);
  const row = storable
    ? await repo.findImportStatus(db.pool, organisationId, supplierCode, externalIdentifier)
    : undefined;
  if (!row) {
    throw new NotFoundError(
      'account_not_found',
      'No account import process found for this import supplier and external identifier.',
    );
  }
  return {
    status: row.status,
    platform_identifier: row.platform_account_number,
    created_at: formatDateTime(row.created_at),
    modified_at: formatDateTime(row.modified_at),
    latest_event:
      row.event === null
        ? null
        : { event: row.event, occurred_at: formatDateTime(row.occurred_at!), data: row.data ?? null },
    latest_error: row.latest_error,
  };
}
