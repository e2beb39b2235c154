// The reconciliation figures of a supplier's imported accounts, read straight from the stored rows and
// streamed from a server-side cursor in external-account-number order, so 100,000 accounts never sit
// in memory. One LATERAL aggregate per account uses each table's (account_id, …) index.
import type { Pool } from 'pg';
import { openBoundedCursor, type OpenCursor } from '../platform/cursor';
import { TRANSACTION_TYPES } from '../transactions/transaction.schemas';
import { transactionAmountFigure, transactionCountFigure } from './reconciliation.figures';

/** Counts are ints; sums are NUMERIC read as text so no digit passes through a float. */
export type ReconciliationDbRow = Record<string, string | number | boolean>;

const perType = TRANSACTION_TYPES.map(
  (type) =>
    `count(*) FILTER (WHERE tx.type = '${type}')::int AS ${transactionCountFigure(type)},
     COALESCE(sum(tx.amount) FILTER (WHERE tx.type = '${type}'), 0)::text AS ${transactionAmountFigure(type)}`,
).join(',\n');

const RECONCILIATION_SQL = `
  SELECT p.external_account_number,
         a.platform_account_number,
         n.notes_count,
         n.service_notes_count,
         t.*,
         s.statements_count,
         s.statements_gross_amount,
         EXISTS (SELECT 1 FROM payment_instructions pi WHERE pi.account_id = a.id AND pi.is_active)
           AS payment_instruction_active,
         COALESCE((p.payload->>'transfer_balance')::numeric, 0)::text AS opening_balance
    FROM account_import_processes p
    JOIN accounts a ON a.process_id = p.id
    LEFT JOIN LATERAL (
      SELECT count(*) FILTER (WHERE n.service_origin IS NULL)::int AS notes_count,
             count(*) FILTER (WHERE n.service_origin IS NOT NULL)::int AS service_notes_count
        FROM notes n WHERE n.account_id = a.id) n ON true
    LEFT JOIN LATERAL (
      SELECT count(*)::int AS transactions_count, ${perType}
        FROM transactions tx WHERE tx.account_id = a.id) t ON true
    LEFT JOIN LATERAL (
      SELECT count(*)::int AS statements_count, COALESCE(sum(hs.gross_amount), 0)::text AS statements_gross_amount
        FROM historical_statements hs WHERE hs.account_id = a.id) s ON true
   WHERE p.supplier_code = $1 AND p.state = 'IMPORTED'
   ORDER BY p.external_account_number`;

/** A bounded cursor (shared/platform/cursor.ts): `timeoutMs` bounds each fetch and the whole stream. */
export function streamReconciliation(pool: Pool, supplierCode: string, timeoutMs: number): Promise<OpenCursor> {
  return openBoundedCursor(pool, RECONCILIATION_SQL, [supplierCode], {
    batchSize: 1000,
    timeoutMs,
    what: 'reconciliation',
  });
}
