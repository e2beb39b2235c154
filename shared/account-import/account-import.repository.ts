// Account import processes as the migration API stages, reads and creates them. Plain SQL on pg; every
// look-up that checks a list (products, meter points) is one set-based statement, whatever its size.
import type { Sql } from '../platform/db';
import type { SupplierStatus } from '../generated/prisma/client';

/** The supplier's migration status, or undefined when the organisation may not use it. */
export async function findVisibleSupplier(
  db: Sql,
  organisationId: number,
  supplierCode: string,
): Promise<SupplierStatus | undefined> {
  const { rows } = await db.query<{ status: SupplierStatus }>(
    `SELECT s.status::text AS status
       FROM import_suppliers s
       JOIN organisation_suppliers os ON os.supplier_code = s.code AND os.organisation_id = $1
      WHERE s.code = $2`,
    [organisationId, supplierCode],
  );
  return rows[0]?.status;
}

export async function operationsTeamExists(db: Sql, name: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM operations_teams WHERE name = $1', [name]);
  return rows.length > 0;
}

/** The codes of `codes` that are not in the product catalogue. */
export async function missingProducts(db: Sql, codes: string[]): Promise<Set<string>> {
  if (codes.length === 0) return new Set();
  const { rows } = await db.query<{ code: string }>(
    `SELECT c.code FROM unnest($1::text[]) AS c(code)
      WHERE NOT EXISTS (SELECT 1 FROM products p WHERE p.code = c.code)`,
    [[...new Set(codes)]],
  );
  return new Set(rows.map((r) => r.code));
}

/**
 * The meter points of `identifiers` that another account of the supplier already supplies, with
 * that account's external number.
 */
export async function takenMeterPoints(
  db: Sql,
  supplierCode: string,
  identifiers: string[],
  externalAccountNumber: string,
): Promise<Map<string, string>> {
  if (identifiers.length === 0) return new Map();
  const { rows } = await db.query<{ identifier: string; external_account_number: string }>(
    `SELECT mp.identifier, p.external_account_number
       FROM meter_points mp
       JOIN accounts a ON a.id = mp.account_id
       JOIN account_import_processes p ON p.id = a.process_id
      WHERE mp.supplier_code = $1 AND mp.identifier = ANY($2::text[]) AND p.external_account_number <> $3`,
    [supplierCode, [...new Set(identifiers)], externalAccountNumber],
  );
  return new Map(rows.map((r) => [r.identifier, r.external_account_number]));
}

export interface StagedProcess {
  id: number;
  created: boolean;
  /** Set when the process already has an account: nothing was staged. */
  platformAccountNumber?: string;
}

/**
 * Stages `payload` for (supplier, external number): a new process, or the payload of a process that
 * has no account yet replaced, with its event. The process row is locked while it is decided, so a
 * concurrent creation either sees the new payload or makes this call find its account.
 */
export async function stageProcess(
  tx: Sql,
  supplierCode: string,
  externalAccountNumber: string,
  payload: string,
  now: Date,
): Promise<StagedProcess> {
  const inserted = await tx.query<{ id: number }>(
    `INSERT INTO account_import_processes
            (supplier_code, external_account_number, state, staged_at, payload, status, created_at, modified_at)
     VALUES ($1, $2, 'STAGED', $4, $3::jsonb, 'PENDING', $4, $4)
     ON CONFLICT (supplier_code, external_account_number) DO NOTHING
     RETURNING id`,
    [supplierCode, externalAccountNumber, payload, now],
  );
  const newId = inserted.rows[0]?.id;
  if (newId !== undefined) {
    await recordEvent(tx, newId, 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED', now, null);
    return { id: newId, created: true };
  }
  const { rows } = await tx.query<{ id: number; platform_account_number: string | null }>(
    `SELECT p.id, a.platform_account_number
       FROM account_import_processes p
       LEFT JOIN accounts a ON a.process_id = p.id
      WHERE p.supplier_code = $1 AND p.external_account_number = $2
        FOR UPDATE OF p`,
    [supplierCode, externalAccountNumber],
  );
  const row = rows[0]!;
  if (row.platform_account_number !== null) {
    return { id: row.id, created: false, platformAccountNumber: row.platform_account_number };
  }
  // A process an earlier attempt left FAILED, ERRORED or CANCELLED is staged afresh.
  await tx.query(
    `UPDATE account_import_processes
        SET payload = $2::jsonb, modified_at = $3, staged_at = $3,
            state = CASE WHEN state = 'FAILED' THEN 'STAGED'::"ImportState" ELSE state END,
            status = CASE WHEN status = 'IN_PROGRESS' THEN status ELSE 'PENDING'::"ImportStatus" END
      WHERE id = $1`,
    [row.id, payload, now],
  );
  await recordEvent(tx, row.id, 'EVENT_ACCOUNT_IMPORT_PROCESS_UPDATED', now, null);
  return { id: row.id, created: false };
}

export async function recordEvent(tx: Sql, processId: number, event: string, at: Date, data: unknown): Promise<void> {
  await tx.query(
    'INSERT INTO account_import_process_events (process_id, event, occurred_at, data) VALUES ($1, $2, $3, $4::jsonb)',
    [processId, event, at, data === null ? null : JSON.stringify(data)],
  );
}

export interface ImportStatusRow {
  status: string;
  platform_account_number: string | null;
  created_at: Date;
  modified_at: Date;
  latest_error: { code: string; detail: string; domain: string } | null;
  event: string | null;
  occurred_at: Date | null;
  data: unknown;
}

/** The v2 status of a process the organisation may see, with its latest event. */
export async function findImportStatus(
  db: Sql,
  organisationId: number,
  supplierCode: string,
  externalAccountNumber: string,
): Promise<ImportStatusRow | undefined> {
  const { rows } = await db.query<ImportStatusRow>(
    `SELECT CASE WHEN a.id IS NOT NULL THEN 'PROCESSED' ELSE p.status::text END AS status,
            a.platform_account_number, p.created_at, p.modified_at, p.latest_error,
            e.event, e.occurred_at, e.data
       FROM account_import_processes p
       JOIN organisation_suppliers os ON os.supplier_code = p.supplier_code AND os.organisation_id = $1
       LEFT JOIN accounts a ON a.process_id = p.id
       LEFT JOIN LATERAL (
              SELECT event, occurred_at, data FROM account_import_process_events
               WHERE process_id = p.id ORDER BY id DESC LIMIT 1) e ON true
      WHERE p.supplier_code = $2 AND p.external_account_number = $3`,
    [organisationId, supplierCode, externalAccountNumber],
  );
  return rows[0];
}

/** The staged payload of a process (null when it has none), without locking. */
export async function findStagedPayload(
  db: Sql,
  supplierCode: string,
  externalAccountNumber: string,
): Promise<unknown> {
  const { rows } = await db.query<{ payload: unknown }>(
    'SELECT payload FROM account_import_processes WHERE supplier_code = $1 AND external_account_number = $2',
    [supplierCode, externalAccountNumber],
  );
  return rows[0]?.payload;
}

export interface LockedProcess {
  id: number;
  payload: unknown;
  platformAccountNumber: string | null;
  supplierStatus: SupplierStatus;
  documentRoot: string;
}

/**
 * The process row, locked until the transaction ends: creations of one account run one at a time. The
 * lock is taken first and the row read by a second statement, so a creation that waited for another
 * sees the account that one committed (a join in the locking statement would read it from before the wait).
 */
export async function lockProcess(
  tx: Sql,
  supplierCode: string,
  externalAccountNumber: string,
): Promise<LockedProcess | undefined> {
  const locked = await tx.query<{ id: number }>(
    `SELECT id FROM account_import_processes
      WHERE supplier_code = $1 AND external_account_number = $2
        FOR UPDATE`,
    [supplierCode, externalAccountNumber],
  );
  const id = locked.rows[0]?.id;
  if (id === undefined) return undefined;
  const { rows } = await tx.query<{
    payload: unknown;
    platform_account_number: string | null;
    status: SupplierStatus;
    document_root: string;
  }>(
    `SELECT p.payload, a.platform_account_number, s.status::text AS status, s.document_root
       FROM account_import_processes p
       JOIN import_suppliers s ON s.code = p.supplier_code
       LEFT JOIN accounts a ON a.process_id = p.id
      WHERE p.id = $1`,
    [id],
  );
  const r = rows[0]!;
  return {
    id,
    payload: r.payload,
    platformAccountNumber: r.platform_account_number,
    supplierStatus: r.status,
    documentRoot: r.document_root,
  };
}

export async function isPlatformAccountNumberTaken(tx: Sql, n: string): Promise<boolean> {
  const { rows } = await tx.query('SELECT 1 FROM accounts WHERE platform_account_number = $1', [n]);
  return rows.length > 0;
}

export async function insertAccount(tx: Sql, processId: number, platformAccountNumber: string, now: Date) {
  const { rows } = await tx.query<{ id: number }>(
    'INSERT INTO accounts (process_id, platform_account_number, created_at) VALUES ($1, $2, $3) RETURNING id',
    [processId, platformAccountNumber, now],
  );
  return rows[0]!.id;
}

/** Records the meter points as the account's; returns the identifiers it got (the others are taken). */
export async function claimMeterPoints(
  tx: Sql,
  supplierCode: string,
  accountId: number,
  points: { identifier: string; supplyType: string }[],
): Promise<Set<string>> {
  if (points.length === 0) return new Set();
  const { rows } = await tx.query<{ identifier: string }>(
    `INSERT INTO meter_points (supplier_code, identifier, supply_type, account_id)
     SELECT $1, i.identifier, i.supply_type, $2
       FROM unnest($3::text[], $4::text[]) AS i(identifier, supply_type)
     ON CONFLICT (supplier_code, identifier) DO NOTHING
     RETURNING identifier`,
    [supplierCode, accountId, points.map((p) => p.identifier), points.map((p) => p.supplyType)],
  );
  return new Set(rows.map((r) => r.identifier));
}

export async function insertStatementPeriod(
  tx: Sql,
  accountId: number,
  startsOn: string,
  endsOn: string | null,
  isOpen: boolean,
): Promise<void> {
  await tx.query(
    'INSERT INTO statement_periods (account_id, starts_on, ends_on, is_open) VALUES ($1, $2::date, $3::date, $4)',
    [accountId, startsOn, endsOn, isOpen],
  );
}

export interface NewStatementRow {
  statement_id: string;
  bill_period_from_date: string;
  bill_period_to_date: string;
  issued_date?: string | null;
  number?: string;
  gross_amount?: number | null;
  statement_path?: string;
  storage_location: string | null;
}

export async function insertStatements(tx: Sql, accountId: number, statements: NewStatementRow[]): Promise<void> {
  if (statements.length === 0) return;
  await tx.query(
    `INSERT INTO historical_statements (account_id, statement_id, bill_period_from_date, bill_period_to_date,
                                        issued_date, number, gross_amount, statement_path, storage_location)
     SELECT $1, s.statement_id, s.bill_period_from_date, s.bill_period_to_date, s.issued_date, s.number,
            s.gross_amount, s.statement_path, s.storage_location
       FROM jsonb_to_recordset($2::jsonb) AS s(statement_id text, bill_period_from_date date,
            bill_period_to_date date, issued_date date, number text, gross_amount bigint,
            statement_path text, storage_location text)`,
    [accountId, JSON.stringify(statements)],
  );
}

export interface NewInstruction {
  vendor: string;
  reference: string;
  type: string;
  vendorDetails: Record<string, unknown>;
  isActive: boolean;
  validFrom: string | null;
  useForScheduledPayments: boolean | null;
}

export async function insertPaymentInstructions(tx: Sql, accountId: number, list: NewInstruction[]): Promise<void> {
  if (list.length === 0) return;
  await tx.query(
    `INSERT INTO payment_instructions (account_id, vendor, reference, type, vendor_details, is_active, valid_from,
                                       use_for_scheduled_payments)
     SELECT $1, i.vendor, i.reference, i.type, i."vendorDetails", i."isActive", i."validFrom", i."useForScheduledPayments"
       FROM jsonb_to_recordset($2::jsonb) AS i(vendor text, reference text, type text, "vendorDetails" jsonb,
            "isActive" boolean, "validFrom" date, "useForScheduledPayments" boolean)`,
    [accountId, JSON.stringify(list)],
  );
}

/** The process has its account: IMPORTED for the v1 reads, PROCESSED for v2. */
export async function markProcessed(tx: Sql, processId: number, team: string | null, now: Date): Promise<void> {
  await tx.query(
    `UPDATE account_import_processes
        SET state = 'IMPORTED', status = 'PROCESSED', modified_at = $2, latest_error = NULL, is_dry_run = false,
            operations_team_name = $3
      WHERE id = $1`,
    [processId, now, team],
  );
}

/** A refused attempt: a real one leaves the process FAILED (UNKNOWN on v1) and ERRORED; a dry run only DRY_RUN_ERRORED. */
export async function markRefused(
  tx: Sql,
  processId: number,
  dryRun: boolean,
  error: { code: string; detail: string; domain: string },
  now: Date,
): Promise<void> {
  await tx.query(
    `UPDATE account_import_processes
        SET state = CASE WHEN $2 THEN (CASE WHEN state = 'IN_PROGRESS' THEN 'STAGED' ELSE state END)
                         ELSE 'FAILED' END::"ImportState",
            status = (CASE WHEN $2 THEN 'DRY_RUN_ERRORED' ELSE 'ERRORED' END)::"ImportStatus",
            is_dry_run = $2, latest_error = $3::jsonb, modified_at = $4
      WHERE id = $1`,
    [processId, dryRun, JSON.stringify(error), now],
  );
}

export async function markDryRunSucceeded(tx: Sql, processId: number, now: Date): Promise<void> {
  await tx.query(
    `UPDATE account_import_processes
        SET state = CASE WHEN state = 'IN_PROGRESS' THEN 'STAGED'::"ImportState" ELSE state END,
            status = 'DRY_RUN_SUCCEEDED', is_dry_run = true, latest_error = NULL, modified_at = $2
      WHERE id = $1`,
    [processId, now],
  );
}

/**
 * A creation job has started on the process: IN_PROGRESS on both the v1 status and v2, with its event.
 * Committed on its own before the creation's transaction, so the status endpoints show it while the
 * job runs. A process that has its account, or is not known, is left alone (false).
 */
export async function markStarted(
  db: Sql,
  supplierCode: string,
  externalAccountNumber: string,
  dryRun: boolean,
  now: Date,
): Promise<boolean> {
  const { rows } = await db.query<{ id: number }>(
    `UPDATE account_import_processes p
        SET state = 'IN_PROGRESS', status = 'IN_PROGRESS', is_dry_run = $3, modified_at = $4
      WHERE p.supplier_code = $1 AND p.external_account_number = $2
        AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.process_id = p.id)
     RETURNING p.id`,
    [supplierCode, externalAccountNumber, dryRun, now],
  );
  const id = rows[0]?.id;
  if (id === undefined) return false;
  await recordEvent(db, id, 'EVENT_ACCOUNT_IMPORT_PROCESS_STARTED', now, dryRun ? { dry_run: true } : null);
  return true;
}
