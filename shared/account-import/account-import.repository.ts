// Account import processes as the migration API stages, reads and creates them. Plain SQL on pg; every
// look-up that checks a list (products, meter points) is one set-based statement, whatever its size.
import type { Sql } from '../platform/db';
import { callOf, type SqlFunction } from '../platform/sql-function';
import type { SupplierStatus } from '../generated/prisma/client';
import { CREATED_EVENT, transition } from './process-lifecycle';

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

/** What the database says of an account's team, products and meter points (checkAgainstDatabase). */
export interface DatabaseFacts {
  teamExists: boolean;
  /** The codes that are not in the product catalogue. */
  missingProducts: Set<string>;
  /** The supply (ELECTRICITY, GAS) of each product that names one. */
  productSupply: Map<string, string>;
  /** The meter points another account of the supplier already supplies, with its external number. */
  takenMeterPoints: Map<string, string>;
}

/** What a schedule reads with the facts: its supplier as the caller sees it, and the caller's unanswered requests. */
export interface CallerFacts {
  /** The supplier's migration status, undefined when the organisation may not use it. */
  supplierStatus: SupplierStatus | undefined;
  /** The organisation's unanswered requests of the capped endpoint, counted up to the cap. */
  unanswered: number;
}

// What databaseFacts reads, in one statement. The caller's part ($6–$8) is read only when $6 is set.
const FACTS = `SELECT ($1::text IS NULL OR EXISTS (SELECT 1 FROM operations_teams WHERE name = $1)) AS team_exists,
            ARRAY(SELECT c.code FROM unnest($2::text[]) AS c(code)
                   WHERE NOT EXISTS (SELECT 1 FROM products p WHERE p.code = c.code)) AS missing,
            (SELECT json_object_agg(p.code, p.supply_type) FROM products p
              WHERE p.code = ANY($2::text[]) AND p.supply_type IS NOT NULL) AS supply,
            COALESCE((SELECT json_agg(json_build_object('identifier', mp.identifier,
                                                        'external', p.external_account_number))
                        FROM meter_points mp
                        JOIN accounts a ON a.id = mp.account_id
                        JOIN account_import_processes p ON p.id = a.process_id
                       WHERE mp.supplier_code = $3 AND mp.identifier = ANY($4::text[])
                         AND p.external_account_number <> $5), '[]'::json) AS taken,
            CASE WHEN $6::int IS NOT NULL THEN
              (SELECT s.status::text FROM import_suppliers s
                 JOIN organisation_suppliers os ON os.supplier_code = s.code AND os.organisation_id = $6
                WHERE s.code = $3) END AS supplier_status,
            CASE WHEN $6::int IS NOT NULL THEN
              (SELECT count(*)::int FROM (
                 SELECT 1 FROM request_results
                  WHERE finished_at IS NULL AND organisation_id = $6 AND endpoint = $7
                  LIMIT $8) pending) END AS unanswered`;

/** FACTS, planned once per connection (shared/platform/sql-function.ts; migration 20261128220000). */
export const ACCOUNT_FACTS: SqlFunction = {
  name: 'account_facts',
  args: ['text', 'text[]', 'text', 'text[]', 'text', 'integer', 'text', 'integer'],
  returns:
    'TABLE(team_exists boolean, missing text[], supply json, taken json, supplier_status text, unanswered integer)',
  query: FACTS,
};
const CALL_ACCOUNT_FACTS = callOf(ACCOUNT_FACTS);

/**
 * The team (when named), the products and the meter points an account refers to, looked up in one
 * statement: one round trip, whether in the API's staging or in the creation job's transaction. With
 * `caller`, the same statement reads the supplier as the organisation sees it (findVisibleSupplier)
 * and counts its unanswered requests of `caller.endpoint` up to `caller.cap` (countUnanswered).
 */
export async function databaseFacts(
  db: Sql,
  refs: { team?: string; productCodes: string[]; supplierCode: string; identifiers: string[]; external: string },
  caller?: { organisationId: number; endpoint: string; cap: number },
): Promise<DatabaseFacts & Partial<CallerFacts>> {
  const { rows } = await db.query<{
    team_exists: boolean;
    missing: string[];
    supply: Record<string, string> | null;
    taken: { identifier: string; external: string }[];
    supplier_status: SupplierStatus | null;
    unanswered: number | null;
  }>(CALL_ACCOUNT_FACTS, [
    refs.team ?? null,
    [...new Set(refs.productCodes)],
    refs.supplierCode,
    [...new Set(refs.identifiers)],
    refs.external,
    caller?.organisationId ?? null,
    caller?.endpoint ?? null,
    caller?.cap ?? null,
  ]);
  const r = rows[0]!;
  return {
    teamExists: r.team_exists,
    missingProducts: new Set(r.missing),
    productSupply: new Map(Object.entries(r.supply ?? {})),
    takenMeterPoints: new Map(r.taken.map((t) => [t.identifier, t.external])),
    ...(caller ? { supplierStatus: r.supplier_status ?? undefined, unanswered: r.unanswered ?? 0 } : {}),
  };
}

export interface StagedProcess {
  id: number;
  created: boolean;
  /** Set when the process already has an account: nothing was staged. */
  platformAccountNumber?: string;
  /** Set when a creation job holds the process: nothing was staged. */
  inProgress?: boolean;
}

/**
 * Stages `payload` for (supplier, external number): a new process, or the payload of a process that
 * has no account yet replaced (the lifecycle's `stage`, with its event). The process row is locked while
 * it is decided, so a concurrent creation either sees the new payload or makes this call find its account.
 */
export async function stageProcess(
  tx: Sql,
  supplierCode: string,
  externalAccountNumber: string,
  payload: string,
  now: Date,
): Promise<StagedProcess> {
  const newId = await insertProcess(tx, supplierCode, externalAccountNumber, payload, now);
  if (newId !== undefined) return { id: newId, created: true };
  const { rows } = await tx.query<{ id: number; status: string; platform_account_number: string | null }>(
    `SELECT p.id, p.status::text AS status, a.platform_account_number
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
  // A process an earlier attempt left ERRORED or CANCELLED is staged afresh; one a job holds is not.
  const moved = await transition(tx, { process: { id: row.id }, event: 'stage', now, set: { payload } });
  return moved === undefined ? { id: row.id, created: false, inProgress: true } : { id: row.id, created: false };
}

/** A new process with its staged payload and CREATED event; undefined when the process exists. */
export async function insertProcess(
  tx: Sql,
  supplierCode: string,
  externalAccountNumber: string,
  payload: string,
  now: Date,
): Promise<number | undefined> {
  const inserted = await tx.query<{ id: number }>(
    `WITH process AS (${INSERT_PROCESS}) ${INSERT_CREATED_EVENT} RETURNING process_id AS id`,
    [supplierCode, externalAccountNumber, payload, now, CREATED_EVENT],
  );
  return inserted.rows[0]?.id;
}

/** A new process ($1 supplier, $2 external number, $3 payload, $4 now), nothing when it exists; its id. */
export const INSERT_PROCESS = `INSERT INTO account_import_processes
              (supplier_code, external_account_number, state, staged_at, payload, status, created_at, modified_at)
       VALUES ($1, $2, 'STAGED', $4, $3::jsonb, 'PENDING', $4, $4)
       ON CONFLICT (supplier_code, external_account_number) DO NOTHING
       RETURNING id`;

/** The CREATED event ($5) of the process INSERT_PROCESS inserted (a CTE named `process`), at $4. */
export const INSERT_CREATED_EVENT = `INSERT INTO account_import_process_events (process_id, event, occurred_at)
     SELECT id, $5, $4 FROM process`;

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

/** The organisation's unanswered requests of `endpoint`, counted up to `cap` (the pending index serves it). */
export async function countUnanswered(db: Sql, organisationId: number, endpoint: string, cap: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM request_results
        WHERE finished_at IS NULL AND organisation_id = $1 AND endpoint = $2
        LIMIT $3) pending`,
    [organisationId, endpoint, cap],
  );
  return rows[0]?.n ?? 0;
}

/** The platform number of the process's account, when it has one (validate-account of an imported account). */
export async function findImportedNumber(
  db: Sql,
  supplierCode: string,
  externalAccountNumber: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT a.platform_account_number AS n FROM account_import_processes p JOIN accounts a ON a.process_id = p.id
      WHERE p.supplier_code = $1 AND p.external_account_number = $2`,
    [supplierCode, externalAccountNumber],
  );
  return rows[0]?.n;
}
