// The API side of the wait-for-result protocol for queued writes (design: "Request flows").
//
// submit: store a pending request_results row (or find the one of an earlier request with the same
// Idempotency-Key), add a job whose id is the row's id, and wait for the worker to finish that row.
// The row is the source of truth; the completion event usually carries the answer so the request need
// not read it, and one poll per process covers events lost while Redis reconnects. A request still
// unfinished at the deadline answers 503 with its id and a Location to poll; its work goes on.
import { createHash, randomUUID } from 'node:crypto';
import type { Database } from '../platform/db';
import { ConflictError, NotFoundError, resultPending, UnavailableError } from '../platform/errors';
import { JOBS, type JobKey, type JobQueues } from '../platform/jobs';
import { enqueueJob } from './enqueue-job';
import type { QueuedRequestOutcome } from './outcome';
import * as repo from './request-result.repository';
import { createWaiterRegistry, type Waiter, type WaiterRegistry } from './waiters';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
const POLL_INTERVAL_MS = 500;
const POLL_BATCH = 500;
const RETRY_AFTER_SECONDS = 2;
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface SubmitRequest {
  job: JobKey;
  organisationId: number;
  accountId: number;
  /** Already checked (parseIdempotencyKey), as is the run id (parseRunId). */
  idempotencyKey: string | undefined;
  runId: string | undefined;
  /** X-Request-Id of the HTTP request, carried into the job's log lines. */
  traceId?: string;
  /** The validated request in the JSON form its job carries (JobPayload): no unknown fields, no secrets. */
  payload: unknown;
}

export interface QueuedRequests {
  submit(req: SubmitRequest): Promise<QueuedRequestOutcome>;
  /** The stored answer of one of the organisation's requests (GET requests/<id>/), or 503 while pending. */
  find(organisationId: number, requestId: string): Promise<QueuedRequestOutcome>;
  /**
   * Ends every wait now and from now on (the process is stopping): a request whose answer is not
   * stored yet answers 503 result_pending with its Location; its job goes on in the workers.
   */
  drain(): void;
  close(): void;
}

interface Context {
  db: Database;
  queues: JobQueues;
  waitMs: number;
  waiters: WaiterRegistry;
  polling: boolean;
  draining: boolean;
}

function hashRequest(endpoint: string, payload: unknown): string {
  return createHash('sha256').update(endpoint).update('\0').update(JSON.stringify(payload)).digest('hex');
}

export function createQueuedRequests(deps: { db: Database; queues: JobQueues; waitMs: number }): QueuedRequests {
  const ctx: Context = { ...deps, waiters: createWaiterRegistry(), polling: false, draining: false };
  const stopListening = listenForCompletions(ctx);
  const poll = setInterval(() => pollWaiting(ctx), POLL_INTERVAL_MS);
  poll.unref();
  return {
    submit: (req) => submitQueuedRequest(ctx, req),
    find: (organisationId, requestId) => findRequestAnswer(ctx.db, organisationId, requestId),
    drain() {
      ctx.draining = true;
      for (const id of ctx.waiters.waitingIds()) ctx.waiters.wake(id);
    },
    close() {
      clearInterval(poll);
      stopListening();
      ctx.waiters.clear();
    },
  };
}

async function submitQueuedRequest(ctx: Context, req: SubmitRequest): Promise<QueuedRequestOutcome> {
  const bodyHash = hashRequest(JOBS[req.job].endpoint, req.payload);
  const { created, result } = await storePending(ctx.db, req, bodyHash);
  if (!created && result.bodyHash !== bodyHash) {
    throw new ConflictError(
      'idempotency_key_reused',
      'This Idempotency-Key was used with a different request body. Use a new key for a new request.',
    );
  }
  if (!created && result.httpStatus != null) {
    // A stored 5xx tells the client to retry as it is, so replaying it would answer that retry the
    // same way for 24 h. It also means nothing was written (work and answer commit together), so
    // the retry runs the request again; any other stored answer is final and replayed.
    if (result.httpStatus < 500) return { ...answerOf(req, result.httpStatus, result.body), replayed: true };
    await repo.reopenRetryable(ctx.db.pool, result.id);
  }
  const replay = !created && result.httpStatus == null;
  const waiter = ctx.waiters.watch(result.id);
  try {
    await enqueueOrRefuse(ctx, req, result.id, !created);
    const outcome = await waitForResult(ctx, req, waiter, result.id, !created);
    return replay ? { ...outcome, replayed: true } : outcome;
  } finally {
    waiter.close();
  }
}

/** The pending row; with a key that has a row older than the replay window, the key is freed first. */
async function storePending(db: Database, req: SubmitRequest, bodyHash: string) {
  const row = {
    organisationId: req.organisationId,
    accountId: req.accountId,
    runId: req.runId ?? null,
    endpoint: JOBS[req.job].endpoint,
    idempotencyKey: req.idempotencyKey ?? null,
    bodyHash,
  };
  const first = await repo.createOrFindPending(db.pool, { id: randomUUID(), ...row });
  if (first.created || Date.now() - first.result.createdAt.getTime() <= IDEMPOTENCY_WINDOW_MS) return first;
  await repo.expireIdempotencyKey(db.pool, first.result.id);
  return repo.createOrFindPending(db.pool, { id: randomUUID(), ...row });
}

/**
 * Adds the job. When Redis refuses, the row gets a 503 answer, but only if it is still pending: the
 * job may have been added after all and finished meanwhile, and a finished answer is never replaced.
 */
async function enqueueOrRefuse(ctx: Context, req: SubmitRequest, requestId: string, replay: boolean): Promise<void> {
  const data = {
    requestId,
    traceId: req.traceId,
    organisationId: req.organisationId,
    accountId: req.accountId,
    version: JOBS[req.job].payload.version,
    payload: req.payload,
  };
  try {
    await enqueueJob(ctx.queues, req.job, data, { replay });
  } catch {
    const refusal = new UnavailableError(
      'queue_unavailable',
      'The work queue is unavailable. Retry the request as it is.',
      RETRY_AFTER_SECONDS,
      requestId,
    );
    const stored = await repo.finishIfPending(ctx.db.pool, requestId, refusal).then(
      () => true,
      () => false,
    );
    // Without a stored answer the Location would report "pending" for ever: leave it out.
    throw stored ? refusal : new UnavailableError('queue_unavailable', refusal.message, RETRY_AFTER_SECONDS);
  }
}

/** `readFirst`: the job may be done already (a replay); a job just added is first waited for. */
async function waitForResult(
  ctx: Context,
  req: SubmitRequest,
  waiter: Waiter,
  requestId: string,
  readFirst: boolean,
): Promise<QueuedRequestOutcome> {
  const deadline = Date.now() + ctx.waitMs;
  let read = readFirst;
  for (;;) {
    if (read) {
      // A failed read counts as "not yet": the request then ends in a 503 with its Location, never in a
      // 500 that a client without a key could not tell from "nothing was done".
      const row = await repo.findResult(ctx.db.pool, requestId).catch(() => null);
      if (row?.httpStatus != null) return answerOf(req, row.httpStatus, row.body);
    }
    const left = deadline - Date.now();
    if (left <= 0 || ctx.draining) throw resultPending(RETRY_AFTER_SECONDS, requestId);
    const answer = eventAnswer(req, await waiter.next(left));
    if (answer) return answer;
    // Woken without an answer (a failed job, a job that found its row finished) or out of time.
    read = true;
  }
}

async function findRequestAnswer(
  db: Database,
  organisationId: number,
  requestId: string,
): Promise<QueuedRequestOutcome> {
  // Another organisation's request answers exactly as one that does not exist.
  const row =
    requestId.length === 36 && REQUEST_ID.test(requestId)
      ? await repo.findOwnResult(db.pool, organisationId, requestId)
      : null;
  // A compact stored answer is rebuilt from what its job wrote (the request itself is not at hand).
  const compact = row?.httpStatus != null ? JOBS[jobOfEndpoint(row.endpoint)].compactAnswer : undefined;
  const rebuilt = compact && row ? await compact.rebuild(db.pool, row.body) : undefined;
  const purged = row?.httpStatus != null && (row.body == null || rebuilt === null);
  if (!row || purged) {
    throw new NotFoundError(
      'request_not_found',
      'No request with this id, or its answer was purged 24 hours after it finished.',
    );
  }
  if (row.httpStatus == null) throw resultPending(RETRY_AFTER_SECONDS, requestId);
  return rebuilt ?? { status: row.httpStatus, body: row.body };
}

/** Every stored row's endpoint is one of the job catalog's (rows are only written for them). */
function jobOfEndpoint(endpoint: string): JobKey {
  const key = (Object.keys(JOBS) as JobKey[]).find((k) => JOBS[k].endpoint === endpoint);
  if (!key) throw new Error(`request_results row of unknown endpoint ${endpoint}`);
  return key;
}

/** One listener per queue for every waiting request (not one per request). */
function listenForCompletions(ctx: Context): () => void {
  const completed = ({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }) =>
    ctx.waiters.wake(jobId, returnvalue ?? undefined);
  const failed = ({ jobId }: { jobId: string }) => ctx.waiters.wake(jobId);
  const events = (Object.keys(JOBS) as JobKey[]).map((key) => ctx.queues.events(key));
  for (const e of new Set(events)) {
    e.on('completed', completed);
    e.on('failed', failed);
  }
  return () => {
    for (const e of new Set(events)) {
      e.off('completed', completed);
      e.off('failed', failed);
    }
  };
}

/**
 * The answer a wake-up carried: a row's status and body (the poll) or the completion event's value,
 * whole (most refusals) or compact (JOBS[job].compactAnswer).
 */
function eventAnswer(req: SubmitRequest, value: unknown): QueuedRequestOutcome | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const whole = value as Partial<QueuedRequestOutcome>;
  if (typeof whole.status === 'number' && 'body' in whole) return answerOf(req, whole.status, whole.body);
  return JOBS[req.job].compactAnswer?.expand(value, req.payload);
}

/** A stored answer as the client gets it: a compact stored form is rebuilt from the request at hand. */
function answerOf(req: SubmitRequest, status: number, body: unknown): QueuedRequestOutcome {
  return JOBS[req.job].compactAnswer?.expand(body, req.payload) ?? { status, body };
}

/** One query for every request this process waits for; skipped while the previous one still runs. */
function pollWaiting(ctx: Context): void {
  const ids = ctx.waiters.waitingIds();
  if (ctx.polling || ids.length === 0) return;
  ctx.polling = true;
  void (async () => {
    for (let i = 0; i < ids.length; i += POLL_BATCH) {
      const rows = await repo.findFinished(ctx.db.pool, ids.slice(i, i + POLL_BATCH));
      for (const row of rows) ctx.waiters.wake(row.id, { status: row.httpStatus, body: row.body });
    }
  })()
    .catch(() => undefined)
    .finally(() => {
      ctx.polling = false;
    });
}
