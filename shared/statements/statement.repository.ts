// Historical statements: one set-based insert per request.
import type { DbClient } from '../platform/db';

export interface NewStatement {
  statementId: string;
  /** YYYY-MM-DD */
  billPeriodFromDate: string;
  /** YYYY-MM-DD */
  billPeriodToDate: string;
  issuedDate: string | null;
  number: string | null;
  grossAmount: number | null;
  statementPath: string | null;
  storageLocation: string | null;
}

/**
 * Inserts the statements whose statement_id the account does not have yet and returns the ids it
 * inserted. The unique (account_id, statement_id) index decides: a concurrent insert of the same id
 * waits for the other transaction and then counts as existing, so no check-then-insert race.
 */
export async function insertNewStatements(
  db: DbClient,
  accountId: number,
  statements: NewStatement[],
): Promise<Set<string>> {
  const rows = await db.$queryRaw<{ statement_id: string }[]>`
    INSERT INTO historical_statements (account_id, statement_id, bill_period_from_date, bill_period_to_date,
                                       issued_date, number, gross_amount, statement_path, storage_location)
    SELECT ${accountId}, i.statement_id, i.bill_period_from_date, i.bill_period_to_date,
           i.issued_date, i.number, i.gross_amount, i.statement_path, i.storage_location
      FROM unnest(
             ${statements.map((s) => s.statementId)}::text[],
             ${statements.map((s) => s.billPeriodFromDate)}::date[],
             ${statements.map((s) => s.billPeriodToDate)}::date[],
             ${statements.map((s) => s.issuedDate)}::date[],
             ${statements.map((s) => s.number)}::text[],
             ${statements.map((s) => s.grossAmount)}::bigint[],
             ${statements.map((s) => s.statementPath)}::text[],
             ${statements.map((s) => s.storageLocation)}::text[]
           ) WITH ORDINALITY AS i(statement_id, bill_period_from_date, bill_period_to_date, issued_date, number,
                                  gross_amount, statement_path, storage_location, ord)
     ORDER BY i.ord
        ON CONFLICT (account_id, statement_id) DO NOTHING
    RETURNING statement_id`;
  return new Set(rows.map((r) => r.statement_id));
}
