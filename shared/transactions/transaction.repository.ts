// Transactions and what an import reads and writes around them. Set-based on purpose: one lookup and
// one INSERT … SELECT FROM unnest(…) per request, whatever its size (the design measured ~10× the
// throughput of createMany at 100 rows).
import type { DbClient } from '../platform/db';

export interface OpenPeriod {
  /** YYYY-MM-DD. */
  startsOn: string;
  /** YYYY-MM-DD, or null while the period runs until it is closed. */
  endsOn: string | null;
}

export interface LockedAccount {
  platformAccountNumber: string;
  openPeriod: OpenPeriod | null;
}

/**
 * Locks the account row until the transaction ends and reads its open statement period. Every import
 * for the account takes this lock first, so two requests can never both find a transaction_id absent
 * and both add it. NO KEY UPDATE, not UPDATE: it serialises imports (and payment instructions, which
 * lock FOR UPDATE) but not the KEY SHARE locks that inserting notes or statements for the account
 * takes through their foreign keys. Undefined when the account no longer exists.
 */
export async function lockAccount(db: DbClient, accountId: number): Promise<LockedAccount | undefined> {
  type Row = { platform_account_number: string; starts_on: string | null; ends_on: string | null };
  const rows = await db.$queryRaw<Row[]>`
    SELECT a.platform_account_number, p.starts_on::text AS starts_on, p.ends_on::text AS ends_on
      FROM accounts a
      LEFT JOIN statement_periods p ON p.account_id = a.id AND p.is_open
     WHERE a.id = ${accountId}
       FOR NO KEY UPDATE OF a`;
  const row = rows[0];
  return (
    row && {
      platformAccountNumber: row.platform_account_number,
      openPeriod: row.starts_on === null ? null : { startsOn: row.starts_on, endsOn: row.ends_on },
    }
  );
}

/** Which of `transactionIds` the account already has. */
export async function findExistingTransactionIds(
  db: DbClient,
  accountId: number,
  transactionIds: string[],
): Promise<Set<string>> {
  if (transactionIds.length === 0) return new Set();
  const rows = await db.$queryRaw<{ transaction_id: string }[]>`
    SELECT DISTINCT transaction_id FROM transactions
     WHERE account_id = ${accountId} AND transaction_id = ANY(${transactionIds}::text[])`;
  return new Set(rows.map((r) => r.transaction_id));
}

export interface NewTransaction {
  transactionId: string;
  /** YYYY-MM-DD, inside the open statement period. */
  transactionDate: string;
  /** The submitted date when it was moved into the open period. */
  originalDate: string | null;
  /** Plain decimal string (never exponent notation): stored exactly as NUMERIC(20,10). */
  amount: string;
  type: string;
  reason: string | null;
  displayNote: string | null;
  note: string | null;
  reference: string | null;
  paymentType: string | null;
  productCode: string | null;
  lineItems: unknown;
  taxItems: unknown;
  description: string | null;
  submitted: unknown;
}

/** Inserts every row in one statement; returns each row's id by transaction_id (unique per request). */
export async function insertTransactions(
  db: DbClient,
  accountId: number,
  requestId: string,
  rows: NewTransaction[],
): Promise<Map<string, string>> {
  if (rows.length === 0) return new Map();
  const col = <K extends keyof NewTransaction>(key: K) => rows.map((r) => r[key]);
  const json = (key: 'lineItems' | 'taxItems' | 'submitted') =>
    rows.map((r) => (r[key] === undefined || r[key] === null ? null : JSON.stringify(r[key])));
  const inserted = await db.$queryRaw<{ id: bigint; transaction_id: string }[]>`
    INSERT INTO transactions (
      account_id, request_id, transaction_id, transaction_date, original_date, amount, type, reason,
      display_note, note, reference, payment_type, product_code, line_items, tax_items, description, submitted)
    SELECT ${accountId}::int, ${requestId}::text, u.*
      FROM unnest(
        ${col('transactionId')}::text[], ${col('transactionDate')}::date[], ${col('originalDate')}::date[],
        ${col('amount')}::numeric[], ${col('type')}::text[], ${col('reason')}::text[],
        ${col('displayNote')}::text[], ${col('note')}::text[], ${col('reference')}::text[],
        ${col('paymentType')}::text[], ${col('productCode')}::text[], ${json('lineItems')}::jsonb[],
        ${json('taxItems')}::jsonb[], ${col('description')}::text[], ${json('submitted')}::jsonb[]) AS u
    RETURNING id, transaction_id`;
  return new Map(inserted.map((r) => [r.transaction_id, String(r.id)]));
}

export async function insertPinnedNote(db: DbClient, accountId: number, body: string, createdAt: Date): Promise<void> {
  await db.note.create({ data: { accountId, body, createdAt, isPinned: true }, select: { id: true } });
}
