// What the support page reads from the run ledger (run_ledger, shared/runs/): a supplier's runs, an
// account's refused writes with their field-level codes, and a supplier's accounts with rejections by
// code. Served by the (supplier_code, external_account_number) index; every read is bounded.
//
// A supplier's pages show only what organisations that may use the supplier sent (OF_ITS_ORGANISATIONS):
// another organisation's writes naming it were answered 404 and are none of its history. (The API
// records such writes without supplier and account; this also keeps out rows recorded before it did.)
import type { Pool } from 'pg';
import { openBoundedCursor, type OpenCursor } from '../platform/cursor';
import type { Sql } from '../platform/db';

const OF_ITS_ORGANISATIONS = `EXISTS (SELECT 1 FROM organisation_suppliers os
                                     WHERE os.organisation_id = l.organisation_id AND os.supplier_code = l.supplier_code)`;

export interface SupplierRunRow {
  organisation_id: number;
  organisation: string | null;
  run_id: string;
  requests: number;
  accounts: number;
  written: number;
  refused: number;
  failed: number;
  first_at: Date;
  last_at: Date;
}

/**
 * The supplier's latest runs (by their last write naming it), with the organisation that sent each.
 * A run is counted whole, as its run page (GET runs/<run_id>/) counts it: every request of the run,
 * and as accounts the (supplier, account) pairs it named.
 */
export async function latestRuns(db: Sql, supplierCode: string, limit: number): Promise<SupplierRunRow[]> {
  const { rows } = await db.query<SupplierRunRow>(
    `WITH runs AS (
       SELECT l.organisation_id, l.run_id, max(l.recorded_at) AS named_at FROM run_ledger l
        WHERE l.supplier_code = $1 AND l.run_id IS NOT NULL AND ${OF_ITS_ORGANISATIONS}
        GROUP BY l.organisation_id, l.run_id ORDER BY named_at DESC LIMIT $2)
     SELECT r.organisation_id, o.name AS organisation, r.run_id, count(DISTINCT l.request_id)::int AS requests,
            count(DISTINCT (l.supplier_code, l.external_account_number))
              FILTER (WHERE l.supplier_code IS NOT NULL AND l.external_account_number IS NOT NULL)::int AS accounts,
            coalesce(sum(l.items) FILTER (WHERE l.outcome = 'written'), 0)::int AS written,
            coalesce(sum(l.items) FILTER (WHERE l.outcome = 'refused'), 0)::int AS refused,
            coalesce(sum(l.items) FILTER (WHERE l.outcome = 'failed'), 0)::int AS failed,
            min(l.recorded_at) AS first_at, max(l.recorded_at) AS last_at
       FROM runs r
       JOIN run_ledger l ON l.run_id = r.run_id AND l.organisation_id = r.organisation_id
       LEFT JOIN organisations o ON o.id = r.organisation_id
      GROUP BY r.organisation_id, o.name, r.run_id, r.named_at
      ORDER BY r.named_at DESC`,
    [supplierCode, limit],
  );
  return rows;
}

export interface RefusalRow {
  recorded_at: Date;
  endpoint: string;
  http_status: number;
  outcome: string;
  code: string | null;
  attr: string | null;
  detail: string | null;
  run_id: string | null;
  request_id: string;
  external_account_number: string | null;
}

const REFUSAL_COLUMNS = `recorded_at, endpoint, http_status, outcome, code, attr, detail, run_id, request_id, external_account_number`;

/** The account's latest refused or failed writes, one row per field error, newest first. */
export async function accountRefusals(
  db: Sql,
  supplierCode: string,
  externalAccountNumber: string,
  limit: number,
): Promise<RefusalRow[]> {
  const { rows } = await db.query<RefusalRow>(
    `SELECT ${REFUSAL_COLUMNS} FROM run_ledger l
      WHERE l.supplier_code = $1 AND l.external_account_number = $2 AND l.outcome IN ('refused', 'failed')
        AND ${OF_ITS_ORGANISATIONS}
      ORDER BY l.recorded_at DESC, l.id DESC LIMIT $3`,
    [supplierCode, externalAccountNumber, limit],
  );
  return rows;
}

/** A run's refused items, one row per field error, in the order they were recorded. */
export async function runRefusals(db: Sql, organisationId: number, runId: string, limit: number) {
  const { rows } = await db.query<RefusalRow>(
    `SELECT ${REFUSAL_COLUMNS} FROM run_ledger
      WHERE run_id = $1 AND organisation_id = $2 AND outcome IN ('refused', 'failed')
      ORDER BY recorded_at, id LIMIT $3`,
    [runId, organisationId, limit],
  );
  return rows;
}

export interface RejectedAccountRow {
  code: string;
  external_account_number: string;
  errors: number;
  example_attr: string | null;
  last_refused_at: string;
  last_run_id: string | null;
}

const REJECTED_ACCOUNTS = `
  SELECT code, external_account_number, count(*)::int AS errors, min(attr) AS example_attr,
         to_char(max(recorded_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS last_refused_at,
         (array_agg(run_id ORDER BY recorded_at DESC) FILTER (WHERE run_id IS NOT NULL))[1] AS last_run_id
    FROM run_ledger l
   WHERE l.supplier_code = $1 AND l.outcome = 'refused' AND l.external_account_number IS NOT NULL
     AND l.code IS NOT NULL AND ${OF_ITS_ORGANISATIONS}
   GROUP BY code, external_account_number
   ORDER BY code, external_account_number`;

/** The supplier's accounts with rejections, by code: at most `limit` rows (the CSV has them all). */
export async function rejectedAccounts(db: Sql, supplierCode: string, limit: number): Promise<RejectedAccountRow[]> {
  const { rows } = await db.query<RejectedAccountRow>(`${REJECTED_ACCOUNTS} LIMIT $2`, [supplierCode, limit]);
  return rows;
}

/** The same rows, all of them, from a server-side cursor (the caller releases it). */
export function streamRejectedAccounts(pool: Pool, supplierCode: string, timeoutMs: number): Promise<OpenCursor> {
  return openBoundedCursor(pool, REJECTED_ACCOUNTS, [supplierCode], {
    batchSize: 2000,
    timeoutMs,
    what: 'rejected accounts',
  });
}
