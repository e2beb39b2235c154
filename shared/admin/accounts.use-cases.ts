// Accounts as the platform team stages and imports them (the real migration's creation step is
// outside the service). An imported account never goes back to an earlier state, and its platform
// account number and creation time never change once set.
import { asSql, type Database, type DbClient } from '../platform/db';
import { NotFoundError, ValidationError } from '../platform/errors';
import { formatDateTime } from '../platform/fields';
import { parseOrThrow } from '../platform/validation';
import type { ImportState } from '../generated/prisma/client';
import * as repo from './accounts.repository';
import { AccountList, AccountPut, AccountRef } from './admin.schemas';
import { IMPORT_ONLY_FIELDS, type AccountSpecT } from './apply.schemas';
import { checkSupplierReferences } from './suppliers.use-cases';
import { ADMIN_STATES, freePlatformNumbers } from '../account-import/process-lifecycle';

const stateName = (s: ImportState) => s.toLowerCase() as AccountSpecT['state'];
const day = (d: Date) => d.toISOString().slice(0, 10);
const midnightUtc = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`);

export interface AccountSummary {
  import_supplier: string;
  external_account_number: string;
  state: string;
  platform_account_number: string | null;
}

/**
 * Brings one account to `a`; errors name fields without a prefix (apply adds `accounts.<i>.`).
 * The import supplier must exist.
 */
export async function upsertAccount(tx: DbClient, a: AccountSpecT): Promise<AccountSummary> {
  const existing = await repo.findProcess(tx, a.import_supplier, a.external_account_number);
  const summary = {
    import_supplier: a.import_supplier,
    external_account_number: a.external_account_number,
    state: a.state,
  };
  if (a.state !== 'imported') {
    if (existing?.account) {
      throw ValidationError.single(
        'state',
        'account_already_imported',
        'An imported account cannot go back to an earlier state.',
      );
    }
    for (const field of IMPORT_ONLY_FIELDS) {
      if (a[field] !== undefined) {
        throw ValidationError.single(
          field,
          'only_for_imported_accounts',
          `${field} is only allowed with state "imported".`,
        );
      }
    }
    await repo.upsertProcess(tx, a.import_supplier, a.external_account_number, ADMIN_STATES[a.state]);
    return { ...summary, platform_account_number: null };
  }
  const processId = await repo.upsertProcess(tx, a.import_supplier, a.external_account_number, ADMIN_STATES.imported);
  const platformAccountNumber = existing?.account
    ? await reconcileAccount(tx, existing.account, a)
    : await createAccount(tx, processId, a);
  return { ...summary, platform_account_number: platformAccountNumber };
}

async function createAccount(tx: DbClient, processId: number, a: AccountSpecT): Promise<string> {
  const createdAt = a.account_created_at ?? new Date();
  if (
    a.platform_account_number !== undefined &&
    (await repo.isPlatformAccountNumberTaken(tx, a.platform_account_number))
  ) {
    throw ValidationError.single(
      'platform_account_number',
      'platform_account_number_in_use',
      `${a.platform_account_number} is already the number of another account.`,
    );
  }
  const platformAccountNumber = a.platform_account_number ?? (await freePlatformAccountNumber(tx));
  const accountId = await repo.insertAccount(tx, {
    processId,
    platformAccountNumber,
    createdAt,
    stripeCustomerId: a.stripe_customer ?? null,
  });
  await repo.openStatementPeriod(tx, accountId, midnightUtc(a.open_statement_from ?? day(createdAt)));
  return platformAccountNumber;
}

/** An already imported account: its number and creation time stay; the open period may move forward. */
async function reconcileAccount(
  tx: DbClient,
  account: { id: number; platformAccountNumber: string; createdAt: Date },
  a: AccountSpecT,
): Promise<string> {
  if (a.platform_account_number !== undefined && a.platform_account_number !== account.platformAccountNumber) {
    throw ValidationError.single(
      'platform_account_number',
      'platform_account_number_mismatch',
      `The account is already imported as ${account.platformAccountNumber}.`,
    );
  }
  if (a.account_created_at !== undefined && a.account_created_at.getTime() !== account.createdAt.getTime()) {
    throw ValidationError.single(
      'account_created_at',
      'account_created_at_mismatch',
      `The account was created at ${formatDateTime(account.createdAt)}; that cannot change.`,
    );
  }
  if (a.open_statement_from !== undefined)
    await moveOpenStatementPeriod(tx, account.id, midnightUtc(a.open_statement_from));
  // The recorded customer may be set or corrected later (instructions already stored are not re-checked).
  if (a.stripe_customer !== undefined) await repo.recordStripeCustomer(tx, account.id, a.stripe_customer);
  return account.platformAccountNumber;
}

async function moveOpenStatementPeriod(tx: DbClient, accountId: number, from: Date): Promise<void> {
  const open = await repo.findOpenStatementPeriod(tx, accountId);
  if (!open) return repo.openStatementPeriod(tx, accountId, from);
  if (open.startsOn.getTime() === from.getTime()) return;
  if (from < open.startsOn) {
    throw ValidationError.single(
      'open_statement_from',
      'statement_period_not_after_open_period',
      `A new open statement period must start after the current one (${day(open.startsOn)}).`,
    );
  }
  await repo.rollStatementPeriod(tx, open.id, accountId, from);
}

/** The one allocator of every creation path (process-lifecycle.ts), inside the caller's transaction. */
async function freePlatformAccountNumber(tx: DbClient): Promise<string> {
  return (await freePlatformNumbers(asSql(tx), 1))[0]!;
}

/** Stages, marks or imports one account (the apply rules for one account) and shows it. */
export async function putAccount(db: Database, input: unknown) {
  const a = parseOrThrow(AccountPut, input);
  await db.prisma.$transaction(async (tx) => {
    await checkSupplierReferences(tx, [{ code: a.import_supplier, attr: 'import_supplier' }]);
    await upsertAccount(tx, a);
  });
  return showAccount(db, { import_supplier: a.import_supplier, external_account_number: a.external_account_number });
}

export async function showAccount(db: Database, input: unknown) {
  const ref = parseOrThrow(AccountRef, input);
  const p = await repo.findProcessDetail(db.prisma, ref.import_supplier, ref.external_account_number);
  if (!p) {
    throw new NotFoundError(
      'account_not_found',
      'No account import process for this import supplier and external account number.',
    );
  }
  const account = p.account;
  return {
    import_supplier: p.supplierCode,
    external_account_number: p.externalAccountNumber,
    state: stateName(p.state),
    staged_at: formatDateTime(p.stagedAt),
    platform_account_number: account?.platformAccountNumber ?? null,
    account_created_at: account ? formatDateTime(account.createdAt) : null,
    statement_periods: (account?.statementPeriods ?? []).map((s) => ({
      starts_on: day(s.startsOn),
      ends_on: s.endsOn ? day(s.endsOn) : null,
      is_open: s.isOpen,
    })),
    counts: {
      notes: account?._count.notes ?? 0,
      transactions: account?._count.transactions ?? 0,
      historical_statements: account?._count.statements ?? 0,
      payment_instructions: account?._count.paymentInstructions ?? 0,
    },
  };
}

/** One page of a supplier's accounts in external-account-number order; page on with `after`. */
export async function listAccounts(db: Database, input: unknown) {
  const q = parseOrThrow(AccountList, input);
  await checkSupplierReferences(db.prisma, [{ code: q.import_supplier, attr: 'import_supplier' }]);
  const rows = await repo.listProcesses(db.prisma, q.import_supplier, q.after, q.limit);
  return rows.map((p) => ({
    external_account_number: p.externalAccountNumber,
    state: stateName(p.state),
    staged_at: formatDateTime(p.stagedAt),
    platform_account_number: p.account?.platformAccountNumber ?? null,
    account_created_at: p.account ? formatDateTime(p.account.createdAt) : null,
  }));
}
