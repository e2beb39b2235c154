// Transactions and what an import reads and writes around them. Set-based on purpose: one lookup and
// one INSERT … SELECT per request, whatever its size (the design measured ~10× the throughput of
// createMany at 100 rows). Plain SQL, run on a pg transaction or inside a Prisma one (asSql).
import type { SupplierStatus } from '../generated/prisma/client';
import type { Sql } from '../platform/db';
import { callStatement, type SqlFunction } from '../platform/sql-function';
import { wholeSecond } from '../platform/fields';
import type { TransactionData } from './transaction-data';

export interface OpenPeriod {
  /** YYYY-MM-DD. */
  startsOn: string;
  /** YYYY-MM-DD, or null while the period runs until it is closed. */
  endsOn: string | null;
}

/** What an import is planned against (import-plan.ts). */
export interface PlannedAccount {
  platformAccountNumber: string;
  openPeriod: OpenPeriod | null;
}

export interface LockedAccount extends PlannedAccount {
  /**
   * Still what the API resolved (shared/accounts/account.use-cases.ts resolveWritableAccount, maybe from
   * its cache): imported, under the request's supplier, which the request's organisation still has.
   */
  writable: boolean;
  supplierStatus: SupplierStatus;
}

/** An account a group writes to, with what the API resolved it from. */
export interface AccountToLock {
  accountId: number;
  organisationId: number;
  supplierCode: string;
}

// Run for every group of imports (a group commit): each in a function planned once per connection
// (shared/platform/sql-function.ts; migration 20261128230000), called as a Prepared.
// Accounts are locked in id order, so two groups never wait for each other in a cycle; a group of
// several imports does not wait at all (NOWAIT, see lockAccounts). The same statement reads again what
// the API's (cached) account look-up decided, so the check costs no round trip: \`writable\` is that
// look-up's condition (shared/accounts/account.repository.ts FIND_IMPORTED_ACCOUNT) for this account.
// Every row by its key, one index probe per account: \`= ANY(ARRAY[…])\` is a join condition no hash
// or merge join can use, so the planner cannot scan a table that is small or not analysed instead.
const lockAccountsFunction = (wait: boolean): SqlFunction => ({
  name: wait ? 'lock_accounts_checked' : 'lock_accounts_checked_nowait',
  args: ['integer[]', 'integer[]', 'text[]'],
  returns:
    'TABLE(id integer, platform_account_number text, starts_on text, ends_on text, supplier_status text, writable boolean)',
  query: `SELECT a.id, a.platform_account_number, p.starts_on::text AS starts_on, p.ends_on::text AS ends_on,
                s.status::text AS supplier_status,
                (ip.state = 'IMPORTED' AND ip.supplier_code = k.supplier_code
                 AND EXISTS (SELECT 1 FROM organisation_suppliers os
                              WHERE os.organisation_id = k.organisation_id AND os.supplier_code = k.supplier_code))
                  AS writable
           FROM unnest($1::int[], $2::int[], $3::text[]) AS k(account_id, organisation_id, supplier_code)
           JOIN accounts a ON a.id = ANY(ARRAY[k.account_id])
           JOIN account_import_processes ip ON ip.id = ANY(ARRAY[a.process_id])
           JOIN import_suppliers s ON s.code = ip.supplier_code
           LEFT JOIN statement_periods p ON p.account_id = ANY(ARRAY[a.id]) AND p.is_open
          ORDER BY a.id
            FOR NO KEY UPDATE OF a${wait ? '' : ' NOWAIT'}`,
});
export const LOCK_ACCOUNTS_CHECKED = lockAccountsFunction(true);
export const LOCK_ACCOUNTS_CHECKED_NOWAIT = lockAccountsFunction(false);
const LOCK_ACCOUNTS = callStatement('transactions.lock-accounts-checked', LOCK_ACCOUNTS_CHECKED);
const LOCK_ACCOUNTS_NOWAIT = callStatement('transactions.lock-accounts-checked-nowait', LOCK_ACCOUNTS_CHECKED_NOWAIT);
// With each pair its stored echo, read in the look-up itself: a skipped transaction is answered with what
// the account holds, not with what was sent. The oldest row of a pair (check_previously_added=false can
// store one twice).
export const FIND_EXISTING_TRANSACTIONS: SqlFunction = {
  name: 'find_existing_transactions',
  args: ['integer[]', 'text[]'],
  returns: 'TABLE(account_id integer, transaction_id text, submitted jsonb)',
  // One index probe per pair, whatever the statistics say: a plain join of a group's thousands of pairs
  // was planned as a sequential scan and sort of the whole table once it grew unanalysed (2.2 s per
  // group beside 3,000,000 rows, against 32 ms for this shape), and LIMIT inside LATERAL leaves the
  // planner no other way in.
  query: `SELECT k.account_id, k.transaction_id, t.submitted
           FROM unnest($1::int[], $2::text[]) AS k(account_id, transaction_id)
          CROSS JOIN LATERAL (
                SELECT s.submitted FROM transactions s
                 WHERE s.account_id = k.account_id AND s.transaction_id = k.transaction_id
                 ORDER BY s.id LIMIT 1) t`,
};
const FIND_EXISTING = callStatement('transactions.find-existing-pairs', FIND_EXISTING_TRANSACTIONS);
// Every column but the five the import decides is read from the stored echo (`submitted`), so each
// transaction crosses the wire once; the echo's decimals and dates are the submitted ones.
export const INSERT_TRANSACTIONS: SqlFunction = {
  name: 'insert_transactions',
  args: ['jsonb'],
  returns: 'TABLE(id bigint, account_id integer, transaction_id text)',
  query: `INSERT INTO transactions (
           account_id, request_id, transaction_id, transaction_date, original_date, amount, type, reason,
           display_note, note, reference, payment_type, product_code, line_items, tax_items, description, submitted)
         SELECT r.a, r.q, s->>'transaction_id', r.transaction_date, r.original_date, (s->>'amount')::numeric,
                s->>'type', s->>'reason', s->>'display_note', s->>'note', s->>'reference', s->>'payment_type',
                s->>'product_code', NULLIF(s->'line_items', 'null'), NULLIF(s->'tax_items', 'null'), r.description, s
           FROM jsonb_to_recordset($1::jsonb)
                AS r(a int, q text, transaction_date date, original_date date, description text, s jsonb)
         RETURNING id, account_id, transaction_id`,
};
const INSERT = callStatement('transactions.insert-group', INSERT_TRANSACTIONS);

/**
 * Locks the accounts' rows until the transaction ends and reads each one's open statement period, and
 * whether the request may still write to it (LockedAccount's `writable` and `supplierStatus`).
 * Every import for an account takes this lock first, so two requests can never both find a
 * transaction_id absent and both add it. NO KEY UPDATE, not UPDATE: it serialises imports (and payment
 * instructions, which lock FOR UPDATE) but not the KEY SHARE locks that inserting notes or statements
 * for the account takes through their foreign keys. Accounts that no longer exist are missing. Without
 * `wait`, an account another transaction holds makes it throw at once instead of waiting.
 */
export async function lockAccounts(
  db: Sql,
  accounts: AccountToLock[],
  opts: { wait: boolean },
): Promise<Map<number, LockedAccount>> {
  const { rows } = await db.query<{
    id: number;
    platform_account_number: string;
    starts_on: string | null;
    ends_on: string | null;
    supplier_status: SupplierStatus;
    writable: boolean;
  }>(opts.wait ? LOCK_ACCOUNTS : LOCK_ACCOUNTS_NOWAIT, [
    accounts.map((a) => a.accountId),
    accounts.map((a) => a.organisationId),
    accounts.map((a) => a.supplierCode),
  ]);
  return new Map(
    rows.map((row) => [
      row.id,
      {
        platformAccountNumber: row.platform_account_number,
        openPeriod: row.starts_on === null ? null : { startsOn: row.starts_on, endsOn: row.ends_on },
        writable: row.writable,
        supplierStatus: row.supplier_status,
      },
    ]),
  );
}

/** Which of each account's `transactionIds` it already has, by account, each with its stored echo. */
export async function findExistingTransactions(
  db: Sql,
  wanted: { accountId: number; transactionIds: string[] }[],
): Promise<Map<number, Map<string, TransactionData>>> {
  const accounts = wanted.flatMap((w) => w.transactionIds.map(() => w.accountId));
  const existing = new Map(wanted.map((w) => [w.accountId, new Map<string, TransactionData>()]));
  if (accounts.length === 0) return existing;
  const { rows } = await db.query<{ account_id: number; transaction_id: string; submitted: TransactionData }>(
    FIND_EXISTING,
    [accounts, wanted.flatMap((w) => w.transactionIds)],
  );
  for (const r of rows) existing.get(r.account_id)?.set(r.transaction_id, r.submitted);
  return existing;
}

export interface NewTransaction {
  transactionId: string;
  /** YYYY-MM-DD, inside the open statement period. */
  transactionDate: string;
  /** The submitted date when it was moved into the open period. */
  originalDate: string | null;
  description: string | null;
  /** The transaction as the answer echoes it (transaction_data): every other column is read from it. */
  submitted: TransactionData;
}

/** The transactions one request adds to one account. */
export interface NewTransactions {
  accountId: number;
  /** The request_results row of the request that adds them. */
  resultId: string;
  rows: NewTransaction[];
}

/**
 * Inserts every request's rows in one statement (each request is for an account of its own); returns
 * each row's id by account, then transaction_id (unique per request). The rows travel as one JSON
 * parameter read by jsonb_to_recordset: fifteen array parameters cost more CPU to send (through
 * Prisma's raw API 2.6 against 1.2 ms for 100 rows, on pg 0.75 against 0.55 ms). Amounts are JSON
 * strings, so NUMERIC receives every submitted digit.
 */
export async function insertTransactions(
  db: Sql,
  batches: NewTransactions[],
): Promise<Map<number, Map<string, number>>> {
  const ids = new Map(batches.map((b) => [b.accountId, new Map<string, number>()]));
  const records = batches.flatMap((b) =>
    b.rows.map((r) => ({
      a: b.accountId,
      q: b.resultId,
      transaction_date: r.transactionDate,
      original_date: r.originalDate,
      description: r.description,
      s: r.submitted,
    })),
  );
  if (records.length === 0) return ids;
  // id is int8: a string from pg. The contract answers it as a JSON integer; a JSON number holds every
  // integer exactly up to 2^53 - 1 (9,007,199,254,740,991 rows), which a sequence that starts at 1
  // never reaches in practice.
  const { rows: inserted } = await db.query<{ id: string; account_id: number; transaction_id: string }>(INSERT, [
    JSON.stringify(records),
  ]);
  for (const r of inserted) ids.get(r.account_id)?.set(r.transaction_id, Number(r.id));
  return ids;
}

/** The stored echo (`submitted`) of each of these transactions that exists, by id. */
export async function findEchoes(db: Sql, ids: number[]): Promise<Map<number, TransactionData>> {
  const { rows } = await db.query<{ id: string; submitted: TransactionData }>(
    'SELECT id, submitted FROM transactions WHERE id = ANY($1::int8[])',
    [ids],
  );
  return new Map(rows.map((r) => [Number(r.id), r.submitted]));
}

/** A note at `createdAt`'s whole second: every note datetime is (see wholeSecond). */
export async function insertPinnedNote(db: Sql, accountId: number, body: string, createdAt: Date): Promise<void> {
  // service_origin: the service wrote it, not a migration; reconciliation reports it apart.
  await db.query(
    `INSERT INTO notes (account_id, body, created_at, is_pinned, service_origin)
     VALUES ($1, $2, $3::timestamptz, true, 'moved_transactions')`,
    [accountId, body, wholeSecond(createdAt)],
  );
}

export interface ProductRate {
  rateBand: string;
  /** Plain decimal string. */
  pricePerUnit: string;
  /** YYYY-MM-DD; validTo is the first day the rate no longer applies, null while it runs on. */
  validFrom: string;
  validTo: string | null;
}

/** The rates of each of `codes` that exists (a product with no rates maps to []); absent codes are missing. */
export async function findProductRates(db: Sql, codes: string[]): Promise<Map<string, ProductRate[]>> {
  const { rows } = await db.query<{
    code: string;
    rate_band: string | null;
    price_per_unit: string | null;
    valid_from: string | null;
    valid_to: string | null;
  }>(
    `SELECT p.code, r.rate_band, r.price_per_unit::text AS price_per_unit, r.valid_from::text AS valid_from,
            r.valid_to::text AS valid_to
       FROM products p LEFT JOIN product_rates r ON r.product_code = p.code
      WHERE p.code = ANY($1::text[])`,
    [codes],
  );
  const products = new Map<string, ProductRate[]>();
  for (const row of rows) {
    const rates = products.get(row.code) ?? [];
    products.set(row.code, rates);
    if (row.rate_band === null) continue;
    rates.push({
      rateBand: row.rate_band,
      pricePerUnit: row.price_per_unit!,
      validFrom: row.valid_from!,
      validTo: row.valid_to,
    });
  }
  return products;
}

export interface ChargedPeriod {
  supplyPoint: string | null;
  /** YYYY-MM-DD, as the line item was sent. */
  startDate: string;
  endDate: string;
}

/**
 * The line-item periods of the account's stored supply charges that touch [from, to]. Read under the
 * account lock (lockAccount), so a concurrent import cannot charge the same period between this read
 * and the insert.
 */
export async function findChargedPeriods(
  db: Sql,
  accountId: number,
  from: string,
  to: string,
): Promise<ChargedPeriod[]> {
  const { rows } = await db.query<{ supply_point: string | null; start_date: string; end_date: string }>(
    `SELECT t.submitted->>'supply_point_identifier' AS supply_point, li->>'start_date' AS start_date,
            li->>'end_date' AS end_date
       FROM transactions t CROSS JOIN LATERAL jsonb_array_elements(t.line_items) AS li
      WHERE t.account_id = $1 AND t.type = 'SUPPLY_CHARGE'
        AND (li->>'start_date')::date <= $3::date AND (li->>'end_date')::date >= $2::date`,
    [accountId, from, to],
  );
  return rows.map((r) => ({ supplyPoint: r.supply_point, startDate: r.start_date, endDate: r.end_date }));
}

/**
 * The account's open statement period, read without a lock: for the API's checks of a request that
 * already fails (never queued), where a period closing meanwhile changes nothing that is written.
 */
export async function findOpenPeriod(db: Sql, accountId: number): Promise<OpenPeriod | null> {
  const { rows } = await db.query<{ starts_on: string; ends_on: string | null }>(
    `SELECT starts_on::text AS starts_on, ends_on::text AS ends_on
       FROM statement_periods WHERE account_id = $1 AND is_open`,
    [accountId],
  );
  const row = rows[0];
  return row ? { startsOn: row.starts_on, endsOn: row.ends_on } : null;
}
