// run_ledger writes (see the migration 20261126080000_run_ledger): one multi-row INSERT per request
// (the API) or per group of queued requests (the worker, in the group's transaction), and the
// retention purge. Plain SQL, no named statements (the service may run behind a transaction pooler).
import type { Sql } from '../platform/db';
import { callOf, type SqlFunction } from '../platform/sql-function';
import type { LedgerEntry, LedgerSubject } from './ledger-entries';

export interface LedgerRequest {
  requestId: string;
  endpoint: string;
  httpStatus: number;
  subject: LedgerSubject;
  entries: LedgerEntry[];
}

const RECORD_COLUMNS = `request_id text, endpoint text, supplier_code text, external_account_number text,
                        http_status int, dry_run boolean, outcome text, code text, attr text, detail text, items int`;

function records(requests: LedgerRequest[]) {
  return requests.flatMap((r) =>
    r.entries.map((e) => ({
      request_id: r.requestId,
      endpoint: r.endpoint,
      supplier_code: r.subject.supplierCode,
      external_account_number: r.subject.externalAccountNumber,
      http_status: r.httpStatus,
      dry_run: r.subject.dryRun,
      outcome: e.outcome,
      code: e.code,
      attr: e.attr,
      detail: e.detail ?? null,
      items: e.items,
    })),
  );
}

/**
 * The rows of a request the API answered itself (a synchronous write, or a refusal before queueing).
 * A request naming a supplier the caller's organisation may not use (answered 404 like a missing
 * account) is recorded without its supplier and account: what one organisation sends never shows on
 * another's supplier or account.
 */
export async function insertEntries(
  db: Sql,
  caller: { organisationId: number; runId: string | null },
  request: LedgerRequest,
): Promise<void> {
  const rows = records([request]);
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO run_ledger (organisation_id, run_id, request_id, endpoint, supplier_code, external_account_number,
                             http_status, dry_run, outcome, code, attr, detail, items)
     SELECT $1, $2, e.request_id, e.endpoint, v.supplier_code, v.external_account_number, e.http_status, e.dry_run,
            e.outcome, e.code, e.attr, e.detail, e.items
       FROM jsonb_to_recordset($3::jsonb) AS e(${RECORD_COLUMNS})
       LEFT JOIN LATERAL (SELECT e.supplier_code, e.external_account_number FROM organisation_suppliers os
                           WHERE os.organisation_id = $1 AND os.supplier_code = e.supplier_code) v ON true`,
    [caller.organisationId, caller.runId, JSON.stringify(rows)],
  );
}

/** A request the API answers itself, as its ledger rows name it (read by api/run-ledger.ts). */
export interface RequestLedger {
  organisationId: number;
  runId: string | null;
  requestId: string;
  endpoint: string;
  subject: LedgerSubject;
}

/**
 * A synchronous write's rows written by its own transaction (so its request costs no statement after
 * the answer): `template` is what `records` makes of the answer it will give, one row per item status
 * with `items` 1 (entriesOf, as the API would record it), and the write's SQL inserts the rows whose
 * `code` one of its counted statuses names, with that count. A statement's CTE, parameters `$org` (the
 * organisation), `$template` (ledgerTemplate's JSON) and `counts` (a relation of `code text, items int`).
 */
export function countedLedgerInsert(org: string, template: string, counts: string): string {
  return `INSERT INTO run_ledger (organisation_id, run_id, request_id, endpoint, supplier_code, external_account_number,
                                 http_status, dry_run, outcome, code, attr, detail, items)
          SELECT ${org}, t.run_id, t.request_id, t.endpoint, t.supplier_code, t.external_account_number, t.http_status,
                 t.dry_run, t.outcome, t.code, t.attr, t.detail, c.items
            FROM jsonb_to_recordset(${template}::jsonb) AS t(run_id text, ${RECORD_COLUMNS})
            JOIN ${counts} c ON c.code IS NOT DISTINCT FROM t.code`;
}

/** The template rows of `countedLedgerInsert`: the request's rows for an answer with one item of each status. */
export function ledgerTemplate(ledger: RequestLedger, httpStatus: number, entries: LedgerEntry[]): string {
  const rows = records([{ ...ledger, httpStatus, entries: entries.map((e) => ({ ...e, items: 1 })) }]);
  return JSON.stringify(rows.map((r) => ({ ...r, run_id: ledger.runId })));
}

/** The rows of queued requests' answers (insertQueuedEntries), planned once per connection (migration 20261128230000). */
export const INSERT_QUEUED_ENTRIES: SqlFunction = {
  name: 'insert_queued_ledger_rows',
  args: ['jsonb'],
  returns: 'void',
  query: `INSERT INTO run_ledger (organisation_id, run_id, request_id, endpoint, supplier_code, external_account_number,
                             http_status, dry_run, outcome, code, attr, detail, items)
     SELECT r.organisation_id, r.run_id, e.request_id, r.endpoint, coalesce(p.supplier_code, e.supplier_code),
            coalesce(p.external_account_number, e.external_account_number), e.http_status, e.dry_run, e.outcome,
            e.code, e.attr, e.detail, e.items
       FROM jsonb_to_recordset($1::jsonb) AS e(${RECORD_COLUMNS})
       JOIN request_results r ON r.id = ANY(ARRAY[e.request_id])
       LEFT JOIN accounts a ON a.id = ANY(ARRAY[r.account_id])
       LEFT JOIN account_import_processes p ON p.id = ANY(ARRAY[a.process_id])`,
};
// Sent as plain text, like every statement of this file: no name to keep on a connection.
const INSERT_QUEUED = callOf(INSERT_QUEUED_ENTRIES);

/**
 * The rows of queued requests whose answers the worker stores in this transaction: the organisation and
 * run id come from each request's request_results row (the API stored them with it), and so does the
 * account, which the API resolved before queueing (a request that creates its account has none yet: its
 * payload's names stand, validated by the API). Each row found by its primary key, one index probe per
 * entry: \`= ANY(ARRAY[…])\` is a join condition no hash or merge join can use, so the planner cannot
 * scan a table that is still small (or not analysed) and hash the entries against it.
 */
export async function insertQueuedEntries(tx: Sql, requests: LedgerRequest[]): Promise<void> {
  const rows = records(requests);
  if (rows.length === 0) return;
  await tx.query(INSERT_QUEUED, [JSON.stringify(rows)]);
}

/** Deletes at most `limit` rows recorded before `cutoff`, oldest first (served by the BRIN index). */
export async function deleteLedgerBefore(db: Sql, cutoff: Date, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM run_ledger WHERE id IN (SELECT id FROM run_ledger WHERE recorded_at < $1 LIMIT $2)`,
    [cutoff, limit],
  );
  return rowCount ?? 0;
}
