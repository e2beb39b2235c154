// request_results: the stored outcome of every queued request (see shared/requests/queued-request.ts).
// Plain SQL: every queued request inserts a row, reads it back and finishes it, and Prisma's model
// API multiplied the CPU of those steps (finishing a 100-transaction body alone took ~2 ms).
import type { Prisma } from '../generated/prisma/client';
import type { Prepared, Sql } from '../platform/db';

export interface StoredResult {
  id: string;
  bodyHash: string;
  httpStatus: number | null;
  body: Prisma.JsonValue;
  createdAt: Date;
}

const COLUMNS = 'id, body_hash AS "bodyHash", http_status AS "httpStatus", body, created_at AS "createdAt"';

// Run for every queued request: prepared once per connection (see Prepared).
const INSERT_PENDING: Prepared = {
  name: 'requests.insert-pending',
  text: `INSERT INTO request_results (id, organisation_id, endpoint, idempotency_key, body_hash)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING`,
};
const FIND: Prepared = { name: 'requests.find', text: `SELECT ${COLUMNS} FROM request_results WHERE id = $1` };
const LOCK_UNFINISHED: Prepared = {
  name: 'requests.lock-unfinished',
  text: 'SELECT finished_at IS NOT NULL AS finished FROM request_results WHERE id = $1 FOR UPDATE',
};
const FINISH: Prepared = {
  name: 'requests.finish',
  text: 'UPDATE request_results SET http_status = $2::int, body = $3::jsonb, finished_at = now() WHERE id = $1',
};

/** Inserts the pending row; with a key that already has a row, returns that row instead. */
export async function createOrFindPending(
  db: Sql,
  row: { id: string; organisationId: number; endpoint: string; idempotencyKey: string | null; bodyHash: string },
): Promise<{ created: boolean; result: StoredResult }> {
  const inserted = await db.query(INSERT_PENDING, [row.id, row.organisationId, row.endpoint, row.idempotencyKey, row.bodyHash]);
  if (inserted.rowCount === 1) {
    return { created: true, result: { id: row.id, bodyHash: row.bodyHash, httpStatus: null, body: null, createdAt: new Date() } };
  }
  // A separate statement: it sees the conflicting row once the insert above has waited for its commit.
  const { rows } = await db.query<StoredResult>(
    `SELECT ${COLUMNS} FROM request_results
      WHERE organisation_id = $1 AND endpoint = $2 AND idempotency_key = $3`,
    [row.organisationId, row.endpoint, row.idempotencyKey],
  );
  if (!rows[0]) throw new Error(`request result ${row.id} neither inserted nor found`);
  return { created: false, result: rows[0] };
}

export async function findResult(db: Sql, id: string): Promise<StoredResult | null> {
  const { rows } = await db.query<StoredResult>(FIND, [id]);
  return rows[0] ?? null;
}

/** Frees an idempotency key whose row is older than the replay window. */
export async function expireIdempotencyKey(db: Sql, id: string): Promise<void> {
  await db.query('UPDATE request_results SET idempotency_key = NULL WHERE id = $1', [id]);
}

/**
 * Makes a request whose stored answer is a 5xx ("retry as it is") pending again, so the retry runs it.
 * A concurrent retry may have reopened (or even finished) it first: then this changes nothing.
 */
export async function reopenRetryable(db: Sql, id: string): Promise<void> {
  await db.query(
    'UPDATE request_results SET http_status = NULL, body = NULL, finished_at = NULL WHERE id = $1 AND http_status >= 500',
    [id],
  );
}

export async function deleteResult(db: Sql, id: string): Promise<void> {
  await db.query('DELETE FROM request_results WHERE id = $1', [id]);
}

/**
 * Locks the row for the worker. Returns false when it is already finished: an earlier run of the job
 * committed its work and its result, so this run must do nothing.
 */
export async function lockUnfinished(db: Sql, id: string): Promise<boolean> {
  const { rows } = await db.query<{ finished: boolean }>(LOCK_UNFINISHED, [id]);
  return rows[0]?.finished === false;
}

export async function finishResult(db: Sql, id: string, httpStatus: number, body: unknown): Promise<void> {
  await db.query(FINISH, [id, httpStatus, JSON.stringify(body)]);
}
