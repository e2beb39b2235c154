// Set-based statements for streamed account files: one statement per step for a whole chunk, so
// 100,000 accounts cost a few hundred statements rather than half a million. Rows travel as one JSON
// parameter read by jsonb_to_recordset (as transactions are inserted).
import type { Sql } from '../platform/db';

export interface ExistingAccount {
  key: string;
  processId: number;
  state: string;
  accountId: number | null;
  platformAccountNumber: string | null;
  createdAt: Date | null;
  /** YYYY-MM-DD start of the open statement period. */
  openFrom: string | null;
  stripeCustomerId: string | null;
}

export const accountKey = (supplier: string, external: string) => JSON.stringify([supplier, external]);

/** The chunk's accounts that exist, locked until the transaction ends (two loads of one file cannot interleave). */
export async function lockExistingAccounts(
  db: Sql,
  keys: { s: string; e: string }[],
): Promise<Map<string, ExistingAccount>> {
  const { rows } = await db.query<{
    s: string;
    e: string;
    process_id: number;
    state: string;
    account_id: number | null;
    platform_account_number: string | null;
    created_at: Date | null;
    open_from: string | null;
    stripe_customer_id: string | null;
  }>(
    `SELECT p.supplier_code AS s, p.external_account_number AS e, p.id AS process_id, p.state::text AS state,
            a.id AS account_id, a.platform_account_number, a.created_at, sp.starts_on::text AS open_from,
            a.stripe_customer_id
       FROM jsonb_to_recordset($1::jsonb) AS r(s text, e text)
       JOIN account_import_processes p ON p.supplier_code = r.s AND p.external_account_number = r.e
       LEFT JOIN accounts a ON a.process_id = p.id
       LEFT JOIN statement_periods sp ON sp.account_id = a.id AND sp.is_open
        FOR UPDATE OF p`,
    [JSON.stringify(keys)],
  );
  return new Map(
    rows.map((r) => [
      accountKey(r.s, r.e),
      {
        key: accountKey(r.s, r.e),
        processId: r.process_id,
        state: r.state,
        accountId: r.account_id,
        platformAccountNumber: r.platform_account_number,
        createdAt: r.created_at === null ? null : new Date(r.created_at),
        openFrom: r.open_from,
        stripeCustomerId: r.stripe_customer_id,
      },
    ]),
  );
}

/** Inserts or re-states processes; returns their ids by key. */
export async function upsertProcesses(
  db: Sql,
  rows: { s: string; e: string; state: string; status: string }[],
): Promise<Map<string, number>> {
  if (rows.length === 0) return new Map();
  const { rows: saved } = await db.query<{ id: number; s: string; e: string }>(
    `INSERT INTO account_import_processes (supplier_code, external_account_number, state, status)
     SELECT r.s, r.e, r.state::"ImportState", r.status::"ImportStatus"
       FROM jsonb_to_recordset($1::jsonb) AS r(s text, e text, state text, status text)
         ON CONFLICT (supplier_code, external_account_number)
         DO UPDATE SET state = EXCLUDED.state, status = EXCLUDED.status
     RETURNING id, supplier_code AS s, external_account_number AS e`,
    [JSON.stringify(rows)],
  );
  return new Map(saved.map((r) => [accountKey(r.s, r.e), Number(r.id)]));
}

/** Which of `numbers` already belong to an account. */
export async function takenPlatformAccountNumbers(db: Sql, numbers: string[]): Promise<Set<string>> {
  if (numbers.length === 0) return new Set();
  const { rows } = await db.query<{ n: string }>(
    `SELECT a.platform_account_number AS n FROM accounts a
      WHERE a.platform_account_number IN (SELECT jsonb_array_elements_text($1::jsonb))`,
    [JSON.stringify(numbers)],
  );
  return new Set(rows.map((r) => r.n));
}

/** Creates the accounts and each one's open statement period in two statements. */
export async function insertAccounts(
  db: Sql,
  rows: {
    processId: number;
    platformAccountNumber: string;
    createdAt: string;
    openFrom: string;
    stripeCustomerId: string | null;
  }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `WITH r AS (SELECT * FROM jsonb_to_recordset($1::jsonb)
                  AS r(process_id int, n text, created_at timestamptz, open_from date, stripe_customer_id text)),
          a AS (INSERT INTO accounts (process_id, platform_account_number, created_at, stripe_customer_id)
                SELECT process_id, n, created_at, stripe_customer_id FROM r RETURNING id, process_id)
     INSERT INTO statement_periods (account_id, starts_on, is_open)
     SELECT a.id, r.open_from, true FROM a JOIN r ON r.process_id = a.process_id`,
    [
      JSON.stringify(
        rows.map((r) => ({
          process_id: r.processId,
          n: r.platformAccountNumber,
          created_at: r.createdAt,
          open_from: r.openFrom,
          stripe_customer_id: r.stripeCustomerId,
        })),
      ),
    ],
  );
}

/**
 * Refreshes the planner's statistics of the tables an account file fills. A load grows them from empty
 * to millions of rows in minutes, and with autovacuum off (or not yet round) nothing else would: the
 * plans of every later request would be costed on the empty tables.
 */
export async function analyzeAccountTables(db: Sql): Promise<void> {
  await db.query('ANALYZE account_import_processes, accounts, statement_periods');
}
