// GET /v1/data-import/runs/<run_id>/: one organisation's run read from run_ledger, through the partial
// index on (run_id, organisation_id). Every statement is bounded by the run's rows and the page size.
import type { Sql } from '../platform/db';

export interface OutcomeCodeRow {
  outcome: string;
  code: string | null;
  items: number;
  entries: number;
}

export interface RequestRow {
  request_id: string;
  endpoint: string;
  http_status: number;
  recorded_at: Date;
}

export interface RunAccountRow {
  import_supplier: string;
  external_account_number: string;
  requests: number;
  written: number;
  skipped: number;
  dry_run: number;
  refused: number;
  not_written: number;
  failed: number;
}

const OF_RUN = 'run_id = $1 AND organisation_id = $2';

export async function countByOutcomeAndCode(db: Sql, organisationId: number, runId: string): Promise<OutcomeCodeRow[]> {
  const { rows } = await db.query<OutcomeCodeRow>(
    `SELECT outcome, code, sum(items)::int AS items, count(*)::int AS entries
       FROM run_ledger WHERE ${OF_RUN}
      GROUP BY outcome, code ORDER BY outcome, code NULLS FIRST`,
    [runId, organisationId],
  );
  return rows;
}

/** How many requests, the first and the last (null for a run with no rows). */
export async function requestSpan(db: Sql, organisationId: number, runId: string) {
  const { rows } = await db.query<{ requests: number; first: RequestRow | null; last: RequestRow | null }>(
    `SELECT count(DISTINCT request_id)::int AS requests,
            (SELECT row_to_json(f) FROM (SELECT request_id, endpoint, http_status, recorded_at FROM run_ledger
              WHERE ${OF_RUN} ORDER BY recorded_at, id LIMIT 1) f) AS first,
            (SELECT row_to_json(l) FROM (SELECT request_id, endpoint, http_status, recorded_at FROM run_ledger
              WHERE ${OF_RUN} ORDER BY recorded_at DESC, id DESC LIMIT 1) l) AS last
       FROM run_ledger WHERE ${OF_RUN}`,
    [runId, organisationId],
  );
  return rows[0]!;
}

export async function countAccounts(db: Sql, organisationId: number, runId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT DISTINCT supplier_code, external_account_number FROM run_ledger
      WHERE ${OF_RUN} AND supplier_code IS NOT NULL AND external_account_number IS NOT NULL) a`,
    [runId, organisationId],
  );
  return rows[0]!.n;
}

/** The run's accounts in (supplier, external account number) order, after `after`; `limit + 1` rows. */
export async function pageAccounts(
  db: Sql,
  organisationId: number,
  runId: string,
  after: [string, string] | undefined,
  limit: number,
): Promise<RunAccountRow[]> {
  const { rows } = await db.query<RunAccountRow>(
    `SELECT supplier_code AS import_supplier, external_account_number, count(DISTINCT request_id)::int AS requests,
            ${['written', 'skipped', 'dry_run', 'refused', 'not_written', 'failed']
              .map((o) => `coalesce(sum(items) FILTER (WHERE outcome = '${o}'), 0)::int AS ${o}`)
              .join(', ')}
       FROM run_ledger
      WHERE ${OF_RUN} AND supplier_code IS NOT NULL AND external_account_number IS NOT NULL
        AND ($3::text IS NULL OR (supplier_code, external_account_number) > ($3, $4))
      GROUP BY supplier_code, external_account_number
      ORDER BY supplier_code, external_account_number
      LIMIT $5`,
    [runId, organisationId, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
  );
  return rows;
}
