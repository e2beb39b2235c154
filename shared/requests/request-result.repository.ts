// request_results: the stored outcome of every queued request (see shared/requests/queued-request.ts).
// Plain SQL: every queued request inserts a row, reads it back and finishes it, and Prisma's model
// API multiplied the CPU of those steps (finishing a 100-transaction body alone took ~2 ms).
import type { Prisma } from '../generated/prisma/client';
import type { Prepared, Sql } from '../platform/db';
import { callStatement, type SqlFunction } from '../platform/sql-function';
import type { AppError } from '../platform/errors';

export interface StoredResult {
  id: string;
  endpoint: string;
  bodyHash: string;
  httpStatus: number | null;
  body: Prisma.JsonValue;
  createdAt: Date;
}

const COLUMNS = 'id, endpoint, body_hash AS "bodyHash", http_status AS "httpStatus", body, created_at AS "createdAt"';

// Run for every queued request: prepared once per connection (see Prepared).
const INSERT_PENDING: Prepared = {
  name: 'requests.insert-pending',
  text: `INSERT INTO request_results (id, organisation_id, endpoint, idempotency_key, body_hash, account_id, run_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT DO NOTHING`,
};
// The pending rows of a burst (shared/requests/burst.ts) in one statement: a row whose Idempotency-Key
// already has one is left out of the answer (its request then takes createOrFindPending's path).
export const INSERT_PENDING_RESULTS: SqlFunction = {
  name: 'insert_pending_results',
  args: ['text[]', 'integer[]', 'text[]', 'text[]', 'text[]', 'integer[]', 'text[]', 'text'],
  returns: 'TABLE(id text)',
  query: `INSERT INTO request_results (id, organisation_id, endpoint, idempotency_key, body_hash, account_id, run_id, job_id)
         SELECT u.id, u.organisation_id, u.endpoint, u.idempotency_key, u.body_hash, u.account_id, u.run_id, $8::text
           FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[])
             AS u(id, organisation_id, endpoint, idempotency_key, body_hash, account_id, run_id)
         ON CONFLICT DO NOTHING
         RETURNING id`,
};
const INSERT_PENDING_MANY = callStatement('requests.insert-pending-many', INSERT_PENDING_RESULTS);
// The rows of requests the API commits itself that have no Idempotency-Key (shared/requests/
// direct-commit.ts): born answered, at the end of the transaction that did their work (nothing can
// conflict with a fresh id, so no row is inserted pending and then updated).
export const INSERT_ANSWERED_RESULTS: SqlFunction = {
  name: 'insert_answered_results',
  args: ['jsonb'],
  returns: 'void',
  query: `INSERT INTO request_results (id, organisation_id, endpoint, body_hash, account_id, run_id,
                                     http_status, body, error_code, finished_at)
         SELECT v.id, v.organisation_id, v.endpoint, v.body_hash, v.account_id, v.run_id,
                v.http_status, v.body, v.error_code, now()
           FROM jsonb_to_recordset($1::jsonb) AS v(id text, organisation_id int, endpoint text, body_hash text,
                account_id int, run_id text, http_status int, body jsonb, error_code text)`,
};
const INSERT_ANSWERED_MANY = callStatement('requests.insert-answered-many', INSERT_ANSWERED_RESULTS);
const FIND: Prepared = { name: 'requests.find', text: `SELECT ${COLUMNS} FROM request_results WHERE id = $1` };
// The worker's lock on the rows of the jobs it runs (one, or a group: shared/requests/group-commit.ts):
// rows are locked in one order (by id), and a group of several jobs does not wait for a row another
// transaction holds (NOWAIT: the group fails, and its jobs run alone, each waiting for its own row).
// Each row is found by its primary key: `= ANY(ARRAY[k.id])` is an index condition that no hash or
// merge join can use, so the planner reads the key's index once per id whatever the table's size or
// statistics; and the pending test is a CASE the planner cannot match to the partial index of pending
// rows, which it would otherwise read whole (every pending row, a backlog's worth) for each group.
const lockUnfinishedFunction = (wait: boolean): SqlFunction => ({
  name: wait ? 'lock_unanswered_results' : 'lock_unanswered_results_nowait',
  args: ['text[]'],
  returns: 'TABLE(id text)',
  query: `SELECT r.id FROM unnest($1::text[]) AS k(id) JOIN request_results r ON r.id = ANY(ARRAY[k.id])
          WHERE CASE WHEN r.finished_at IS NULL THEN true END
          ORDER BY r.id FOR UPDATE OF r${wait ? '' : ' NOWAIT'}`,
});
export const LOCK_UNANSWERED_RESULTS = lockUnfinishedFunction(true);
export const LOCK_UNANSWERED_RESULTS_NOWAIT = lockUnfinishedFunction(false);
const LOCK_UNANSWERED = callStatement('requests.lock-unfinished-by-key', LOCK_UNANSWERED_RESULTS);
const LOCK_UNANSWERED_NOWAIT = callStatement('requests.lock-unfinished-by-key-nowait', LOCK_UNANSWERED_RESULTS_NOWAIT);
// Each row by its primary key, one index probe per answer: `r.id = ANY(ARRAY[v.id])` joins the answers
// to their rows with a condition no hash or merge join can use, so the planner cannot scan the table
// and hash the answers (it did while request_results was small, even with \`r.id = ANY($2)\` beside
// \`r.id = v.id\`: 1.5 ms of PostgreSQL per request while the table held a few thousand rows).
export const STORE_ANSWERS_BY_KEY: SqlFunction = {
  name: 'store_answers',
  args: ['jsonb'],
  returns: 'void',
  query: `UPDATE request_results r
            SET http_status = v.http_status, body = v.body, error_code = v.error_code, finished_at = now()
           FROM jsonb_to_recordset($1::jsonb) AS v(id text, http_status int, body jsonb, error_code text)
          WHERE r.id = ANY(ARRAY[v.id])`,
};
const STORE_ANSWERS = callStatement('requests.finish-many-by-key', STORE_ANSWERS_BY_KEY);
const FIND_FINISHED: Prepared = {
  name: 'requests.find-finished',
  text: 'SELECT id, http_status AS "httpStatus", body FROM request_results WHERE id = ANY($1::text[]) AND finished_at IS NOT NULL',
};

export interface NewPendingResult {
  id: string;
  organisationId: number;
  accountId: number | null;
  runId: string | null;
  endpoint: string;
  idempotencyKey: string | null;
  bodyHash: string;
}

/** Inserts the pending row; with a key that already has a row, returns that row instead. */
export async function createOrFindPending(
  db: Sql,
  row: NewPendingResult,
): Promise<{ created: boolean; result: StoredResult }> {
  const inserted = await db.query(INSERT_PENDING, [
    row.id,
    row.organisationId,
    row.endpoint,
    row.idempotencyKey,
    row.bodyHash,
    row.accountId,
    row.runId,
  ]);
  if (inserted.rowCount === 1) {
    return {
      created: true,
      result: {
        id: row.id,
        endpoint: row.endpoint,
        bodyHash: row.bodyHash,
        httpStatus: null,
        body: null,
        createdAt: new Date(),
      },
    };
  }
  // A separate statement: it sees the conflicting row once the insert above has waited for its commit.
  const found = await findByKey(db, row.organisationId, row.endpoint, row.idempotencyKey!);
  if (!found) throw new Error(`request result ${row.id} neither inserted nor found`);
  return { created: false, result: found };
}

/**
 * Inserts the pending rows of a burst, each naming `jobId` as its job (null: each its own). Returns the
 * ids inserted; a row left out has an Idempotency-Key that another row holds.
 */
export async function insertPendingMany(db: Sql, rows: NewPendingResult[], jobId: string | null): Promise<Set<string>> {
  const column = <K extends keyof NewPendingResult>(key: K) => rows.map((r) => r[key]);
  const { rows: inserted } = await db.query<{ id: string }>(INSERT_PENDING_MANY, [
    column('id'),
    column('organisationId'),
    column('endpoint'),
    column('idempotencyKey'),
    column('bodyHash'),
    column('accountId'),
    column('runId'),
    jobId,
  ]);
  return new Set(inserted.map((r) => r.id));
}

/** Stores each refusal as the answer of its request if it has none yet (one statement for them all). */
export async function storeRefusalsIfPending(db: Sql, refusals: { id: string; err: AppError }[]): Promise<void> {
  const records = refusals.map(({ id, err }) => ({
    id,
    http_status: err.status,
    body: err.toBody(),
    error_code: err.code,
  }));
  await db.query(
    `UPDATE request_results r
        SET http_status = v.http_status, body = v.body, error_code = v.error_code, finished_at = now()
       FROM jsonb_to_recordset($1::jsonb) AS v(id text, http_status int, body jsonb, error_code text)
      WHERE r.id = ANY($2::text[]) AND r.id = v.id AND r.finished_at IS NULL`,
    [JSON.stringify(records), refusals.map((r) => r.id)],
  );
}

/** The row of the organisation's request with this Idempotency-Key at this endpoint, if any. */
export async function findByKey(
  db: Sql,
  organisationId: number,
  endpoint: string,
  idempotencyKey: string,
): Promise<StoredResult | null> {
  const { rows } = await db.query<StoredResult>(
    `SELECT ${COLUMNS} FROM request_results
      WHERE organisation_id = $1 AND endpoint = $2 AND idempotency_key = $3`,
    [organisationId, endpoint, idempotencyKey],
  );
  return rows[0] ?? null;
}

export async function findResult(db: Sql, id: string): Promise<StoredResult | null> {
  const { rows } = await db.query<StoredResult>(FIND, [id]);
  return rows[0] ?? null;
}

/** The organisation's own request: another organisation's id is as absent as an unknown one. */
export async function findOwnResult(db: Sql, organisationId: number, id: string): Promise<StoredResult | null> {
  const { rows } = await db.query<StoredResult>(
    `SELECT ${COLUMNS} FROM request_results WHERE id = $1 AND organisation_id = $2`,
    [id, organisationId],
  );
  return rows[0] ?? null;
}

/** The finished ones among `ids`, with their answers: one query for every request a process waits for. */
export async function findFinished(
  db: Sql,
  ids: string[],
): Promise<{ id: string; httpStatus: number; body: Prisma.JsonValue }[]> {
  const { rows } = await db.query<{ id: string; httpStatus: number; body: Prisma.JsonValue }>(FIND_FINISHED, [ids]);
  return rows;
}

/** Frees an idempotency key whose row is older than the replay window. */
export async function expireIdempotencyKey(db: Sql, id: string): Promise<void> {
  await db.query('UPDATE request_results SET idempotency_key = NULL WHERE id = $1', [id]);
}

/**
 * Makes requests whose stored answer is a 5xx ("retry as it is") pending again, so the retry runs them
 * (a client's retry, or an operator's on the dashboard).
 * A concurrent retry may have reopened (or even finished) it first: then this changes nothing.
 */
export async function reopenRetryable(db: Sql, ids: string | string[]): Promise<void> {
  await db.query(
    `UPDATE request_results SET http_status = NULL, body = NULL, finished_at = NULL
      WHERE id = ANY($1::text[]) AND http_status >= 500`,
    [typeof ids === 'string' ? [ids] : ids],
  );
}

/** Stores a refusal as the answer of a request that has none yet; a finished answer is left alone. */
export async function storeAnswerIfPending(db: Sql, id: string, err: AppError): Promise<void> {
  await db.query(
    `UPDATE request_results SET http_status = $2::int, body = $3::jsonb, error_code = $4, finished_at = now()
      WHERE id = $1 AND finished_at IS NULL`,
    [id, err.status, JSON.stringify(err.toBody()), err.code],
  );
}

/**
 * Locks the unfinished ones among `ids` for the worker (one job or a group): those missing from the answer
 * are finished already, by an earlier run of their job, which must not be repeated. Without `wait`, a
 * row another transaction holds makes it throw at once instead of waiting.
 */
export async function lockUnanswered(db: Sql, ids: string[], opts: { wait: boolean }): Promise<Set<string>> {
  const statement = opts.wait ? LOCK_UNANSWERED : LOCK_UNANSWERED_NOWAIT;
  const { rows } = await db.query<{ id: string }>(statement, [ids]);
  return new Set(rows.map((r) => r.id));
}

export interface StoredAnswer {
  id: string;
  httpStatus: number;
  body: unknown;
  /** The refusal's code (a 4xx or 5xx answer), for support look-ups without reading bodies. */
  errorCode: string | null;
}

/** Stores the answers of requests the worker has locked (lockUnanswered), in one statement. */
export async function storeAnswers(db: Sql, results: StoredAnswer[]): Promise<void> {
  if (results.length === 0) return;
  const records = results.map((r) => ({ id: r.id, http_status: r.httpStatus, body: r.body, error_code: r.errorCode }));
  await db.query(STORE_ANSWERS, [JSON.stringify(records)]);
}

/** Inserts the rows of new requests (no Idempotency-Key) with their answers, in one statement. */
export async function insertAnswered(db: Sql, rows: { row: NewPendingResult; answer: StoredAnswer }[]): Promise<void> {
  if (rows.length === 0) return;
  const records = rows.map(({ row, answer }) => ({
    id: row.id,
    organisation_id: row.organisationId,
    endpoint: row.endpoint,
    body_hash: row.bodyHash,
    account_id: row.accountId,
    run_id: row.runId,
    http_status: answer.httpStatus,
    body: answer.body,
    error_code: answer.errorCode,
  }));
  await db.query(INSERT_ANSWERED_MANY, [JSON.stringify(records)]);
}

/**
 * Drops the answers of requests finished before `cutoff`, at most `limit` rows: what stays (key, body
 * hash, status, error code, account) is what the 422 idempotency_key_reused check and support look-ups
 * need. Served by the partial index on finished_at of rows that still have a body.
 */
export async function purgeAnswers(db: Sql, cutoff: Date, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE request_results SET body = NULL
      WHERE id IN (SELECT id FROM request_results WHERE finished_at < $1 AND body IS NOT NULL LIMIT $2)`,
    [cutoff, limit],
  );
  return rowCount ?? 0;
}
