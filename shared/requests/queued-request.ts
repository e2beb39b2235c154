// The API side of the wait-for-result protocol for queued writes (design: "Request flows").
//
// submit: store a pending request_results row (or find the one of an earlier request with the same
// Idempotency-Key), add a job whose id is the row's id, and wait for the worker to finish that row.
// The row is the source of truth; the completion event usually carries the answer so the request need
// not read it, and one poll per process covers events lost while Redis reconnects. A request still
// unfinished at the deadline answers 503 with its id and a Location to poll; its work goes on.
//
// schedule: the same row and job, but the job waits in BullMQ until its start time and the request
// answers at once; the client follows the work by its own status endpoint or GET requests/<id>/.
import { createHash, randomUUID } from 'node:crypto';
import type { BackoffOptions } from 'bullmq';
import type { Database } from '../platform/db';
import { ConflictError, resultPending, UnavailableError } from '../platform/errors';
import type { JobQueues } from '../platform/queues';
import type { Answer } from './answer';
import { createBurstQueue, type BurstQueue } from './burst';
import { createDirectCommitter, type DirectCommitter } from './direct-commit';
import { enqueueJob } from './enqueue-job';
import { findRequestAnswer } from './find-answer';
import type { AnyQueuedRequestJob } from './job-declaration';
import * as repo from './request-result.repository';
import { createWaiterRegistry, type Waiter } from './waiters';
import { listenForCompletions, pollWaiting, type WakeUpContext } from './wake-ups';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
const POLL_INTERVAL_MS = 500;
const RETRY_AFTER_SECONDS = 2;

interface SubmitRequest {
  job: AnyQueuedRequestJob;
  organisationId: number;
  /** Null for a request that creates its account. */
  accountId: number | null;
  /** Already checked (parseIdempotencyKey), as is the run id (parseRunId). */
  idempotencyKey: string | undefined;
  runId: string | undefined;
  /** X-Request-Id of the HTTP request, carried into the job's log lines. */
  httpRequestId?: string;
  /** The validated request in the JSON form its job carries (JobPayload): no unknown fields, no secrets. */
  payload: unknown;
  /**
   * What the body hash is computed from, when not `payload`: a scheduled request whose payload holds
   * values computed on arrival (a window's default end) hashes the request as sent, so its replay matches.
   */
  hashOf?: unknown;
}

export interface QueuedRequests {
  submit(req: SubmitRequest): Promise<Answer>;
  /**
   * Queues the request's job to start `delayMs` from now and returns its result id at once, without
   * waiting. A repeated Idempotency-Key with the same body finds the request scheduled before
   * (`replayed`); with another body it is refused like a submit's.
   */
  schedule(
    req: SubmitRequest,
    delayMs: number,
    beforeEnqueue?: (resultId: string) => Promise<void>,
  ): Promise<{ resultId: string; replayed: boolean }>;
  /**
   * The request an earlier one with the same Idempotency-Key made (in the replay window), checked
   * before the request does anything: undefined without a key or such a request; 422
   * idempotency_key_reused when its body differs.
   */
  earlier(req: SubmitRequest): Promise<{ resultId: string; httpStatus: number | null } | undefined>;
  /** The stored answer of one of the organisation's requests (GET requests/<id>/), or 503 while pending. */
  find(organisationId: number, resultId: string): Promise<Answer>;
  /**
   * Ends every wait now and from now on (the process is stopping): a request whose answer is not
   * stored yet answers 503 result_pending with its Location; its job goes on in the workers.
   */
  drain(): void;
  close(): void;
}

interface QueuedRequestsDeps {
  db: Database;
  queues: JobQueues;
  /** Every queued-request job kind (shared/catalog/jobs.ts): what GET requests/<id>/ and the listeners cover. */
  jobs: readonly AnyQueuedRequestJob[];
  waitMs: number;
  /** Replaces every job's back-off (tests, so a retried job is not waited out). */
  backoff?: BackoffOptions;
  /** Whether the API commits the bursts of `direct` kinds itself (DIRECT_COMMIT). */
  direct: boolean;
}

interface Context extends QueuedRequestsDeps, WakeUpContext {
  /** The burst hand-over of each kind that declares one (shared/requests/burst.ts). */
  bursts: Map<AnyQueuedRequestJob, BurstQueue>;
  /** The API's own group committer of each `direct` kind (shared/requests/direct-commit.ts), when on. */
  directs: Map<AnyQueuedRequestJob, DirectCommitter>;
  draining: boolean;
}

function hashRequest(endpoint: string, json: string): string {
  return createHash('sha256').update(endpoint).update('\0').update(json).digest('hex');
}

export function createQueuedRequests(deps: QueuedRequestsDeps): QueuedRequests {
  const bursts = new Map<AnyQueuedRequestJob, BurstQueue>();
  for (const kind of deps.jobs) {
    const { burst } = kind;
    if (burst)
      bursts.set(
        kind,
        createBurstQueue({ db: deps.db, queues: deps.queues, kind: { ...kind, burst }, backoff: deps.backoff }),
      );
  }
  const directs = new Map<AnyQueuedRequestJob, DirectCommitter>();
  for (const kind of deps.direct ? deps.jobs : []) {
    const { direct } = kind;
    if (direct) directs.set(kind, createDirectCommitter(deps.db, { ...kind, direct }));
  }
  const ctx: Context = {
    ...deps,
    waiters: createWaiterRegistry(),
    bursts,
    directs,
    burstMembers: new Map(),
    polling: false,
    draining: false,
  };
  const stopListening = listenForCompletions(ctx);
  const poll = setInterval(() => pollWaiting(ctx), POLL_INTERVAL_MS);
  poll.unref();
  return {
    submit: (req) => submitQueuedRequest(ctx, req),
    schedule: (req, delayMs, beforeEnqueue) => scheduleQueuedRequest(ctx, req, delayMs, beforeEnqueue),
    earlier: (req) => findEarlier(ctx, req),
    find: (organisationId, resultId) => findRequestAnswer(ctx, organisationId, resultId),
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

const keyReused = () =>
  new ConflictError(
    'idempotency_key_reused',
    'This Idempotency-Key was used with a different request body. Use a new key for a new request.',
  );

const bodyHashOf = (req: SubmitRequest) =>
  hashRequest(req.job.endpoint, JSON.stringify(req.hashOf === undefined ? req.payload : req.hashOf));

/** The request's pending row, or the row an earlier request with the same Idempotency-Key and body made. */
async function pendingRow(ctx: Context, req: SubmitRequest) {
  const bodyHash = bodyHashOf(req);
  const found = await storePending(ctx.db, req, bodyHash);
  if (!found.created && found.result.bodyHash !== bodyHash) throw keyReused();
  return found;
}

async function findEarlier(ctx: Context, req: SubmitRequest) {
  if (req.idempotencyKey === undefined) return undefined;
  const row = await repo.findByKey(ctx.db.pool, req.organisationId, req.job.endpoint, req.idempotencyKey);
  if (!row || Date.now() - row.createdAt.getTime() > IDEMPOTENCY_WINDOW_MS) return undefined;
  if (row.bodyHash !== bodyHashOf(req)) throw keyReused();
  return { resultId: row.id, httpStatus: row.httpStatus };
}

/**
 * A replay whose request is answered (below 500) is only reported. One still pending, or answered
 * "retry as it is" (a 5xx: nothing was done), runs `beforeEnqueue` and adds its job again (a no-op in
 * BullMQ while the job exists; it recovers a job lost with Redis data or refused by a queue outage).
 */
async function scheduleQueuedRequest(
  ctx: Context,
  req: SubmitRequest,
  delayMs: number,
  beforeEnqueue?: (resultId: string) => Promise<void>,
) {
  const { created, result } = await pendingRow(ctx, req);
  if (!created && result.httpStatus != null && result.httpStatus < 500) return { resultId: result.id, replayed: true };
  if (!created && result.httpStatus != null) await repo.reopenRetryable(ctx.db.pool, result.id);
  await beforeEnqueue?.(result.id);
  await enqueueOrRefuse(ctx, req, result.id, { replay: !created, delayMs });
  return { resultId: result.id, replayed: !created };
}

async function submitQueuedRequest(ctx: Context, req: SubmitRequest): Promise<Answer> {
  const direct = ctx.directs.get(req.job);
  if (direct) {
    const answered = await submitDirect(ctx, direct, req);
    if (answered) return answered;
  }
  const burst = ctx.bursts.get(req.job);
  if (burst) {
    const answered = await submitInBurst(ctx, burst, req);
    if (answered) return answered;
  }
  const { created, result } = await pendingRow(ctx, req);
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
    await enqueueOrRefuse(ctx, req, result.id, { replay: !created });
    const outcome = await waitForResult(ctx, req, waiter, result.id, !created);
    return replay ? { ...outcome, replayed: true } : outcome;
  } finally {
    waiter.close();
  }
}

/**
 * A new request handed over with the others of its burst (its row inserted with theirs, its job theirs)
 * and waited for; undefined when its Idempotency-Key has a row already (a replay, or a key past its
 * window): that request takes submitQueuedRequest's one-by-one path.
 */
async function submitInBurst(ctx: Context, burst: BurstQueue, req: SubmitRequest): Promise<Answer | undefined> {
  const { row, json } = newRowOf(req);
  const { id } = row;
  // Watched before the hand-over: the answer may come before the hand-over's promise resolves. The wait
  // counts from here: time spent waiting for a hand-over slot is part of the client's RESULT_WAIT_MS.
  const waiter = ctx.waiters.watch(id);
  const deadline = Date.now() + ctx.waitMs;
  let jobId: string | undefined;
  try {
    const outcome = await burst.handOver({ row, data: jobDataOf(req, id), bytes: json.length });
    if (outcome.kind === 'taken') return undefined;
    if (outcome.kind === 'refused') throw outcome.refusal;
    jobId = outcome.jobId;
    if (jobId !== id) ctx.burstMembers.set(jobId, (ctx.burstMembers.get(jobId) ?? new Set()).add(id));
    return await waitForResult(ctx, req, waiter, id, false, deadline);
  } finally {
    waiter.close();
    const members = jobId === undefined ? undefined : ctx.burstMembers.get(jobId);
    if (members?.delete(id) && members.size === 0) ctx.burstMembers.delete(jobId!);
  }
}

/**
 * A new request committed by the API itself with the others of its burst (direct-commit.ts); undefined
 * when its Idempotency-Key has a row already (that request takes the one-by-one path). When the
 * transaction did not commit (a lock another transaction holds, a fault, a commit whose outcome is
 * unknown) the queue takes the request under the same id and it is waited for as any queued request.
 */
async function submitDirect(ctx: Context, direct: DirectCommitter, req: SubmitRequest): Promise<Answer | undefined> {
  const { row } = newRowOf(req);
  // The client's RESULT_WAIT_MS counts from here: a request handed to the queue waits what is left.
  const deadline = Date.now() + ctx.waitMs;
  let committed;
  try {
    committed = await direct.commit(row, {
      resultId: row.id,
      organisationId: req.organisationId,
      accountId: req.accountId,
      payload: req.payload,
      version: req.job.payload.version,
    });
  } catch {
    return queueUnderId(ctx, req, row, deadline);
  }
  return committed === null ? undefined : committed.answer;
}

/**
 * Hands a request whose direct commit failed to the queue under the row id it had: its pending row
 * (unless the commit happened after all: its answer is then the row's), its job, and the usual wait.
 * Undefined when the row is absent because its Idempotency-Key has another.
 */
async function queueUnderId(
  ctx: Context,
  req: SubmitRequest,
  row: repo.NewPendingResult,
  deadline: number,
): Promise<Answer | undefined> {
  const inserted = await repo.insertPendingMany(ctx.db.pool, [row], null);
  if (!inserted.has(row.id)) {
    const stored = await repo.findResult(ctx.db.pool, row.id);
    if (!stored) return undefined;
    if (stored.httpStatus != null) return answerOf(req, stored.httpStatus, stored.body);
  }
  const waiter = ctx.waiters.watch(row.id);
  try {
    await enqueueOrRefuse(ctx, req, row.id, { replay: false });
    return await waitForResult(ctx, req, waiter, row.id, false, deadline);
  } finally {
    waiter.close();
  }
}

/** A new request's pending row (with a fresh id), and its payload's JSON. */
function newRowOf(req: SubmitRequest): { row: repo.NewPendingResult; json: string } {
  const json = JSON.stringify(req.payload);
  const bodyHash = req.hashOf === undefined ? hashRequest(req.job.endpoint, json) : bodyHashOf(req);
  return { row: { id: randomUUID(), ...pendingRowOf(req, bodyHash) }, json };
}

/** A request's pending result row, less its id. */
function pendingRowOf(req: SubmitRequest, bodyHash: string) {
  return {
    organisationId: req.organisationId,
    accountId: req.accountId,
    runId: req.runId ?? null,
    endpoint: req.job.endpoint,
    idempotencyKey: req.idempotencyKey ?? null,
    bodyHash,
  };
}

/** What the request's job carries. */
function jobDataOf(req: SubmitRequest, resultId: string) {
  return {
    resultId,
    httpRequestId: req.httpRequestId,
    ...(req.runId === undefined ? {} : { runId: req.runId }),
    organisationId: req.organisationId,
    accountId: req.accountId,
    version: req.job.payload.version,
    payload: req.payload,
  };
}

/** The pending row; with a key that has a row older than the replay window, the key is freed first. */
async function storePending(db: Database, req: SubmitRequest, bodyHash: string) {
  const row = pendingRowOf(req, bodyHash);
  const first = await repo.createOrFindPending(db.pool, { id: randomUUID(), ...row });
  if (first.created || Date.now() - first.result.createdAt.getTime() <= IDEMPOTENCY_WINDOW_MS) return first;
  await repo.expireIdempotencyKey(db.pool, first.result.id);
  return repo.createOrFindPending(db.pool, { id: randomUUID(), ...row });
}

/**
 * Adds the job. When Redis refuses, the row gets a 503 answer, but only if it is still pending: the
 * job may have been added after all and finished meanwhile, and a finished answer is never replaced.
 */
async function enqueueOrRefuse(
  ctx: Context,
  req: SubmitRequest,
  resultId: string,
  opts: { replay: boolean; delayMs?: number },
): Promise<void> {
  try {
    await enqueueJob(ctx.queues, req.job, jobDataOf(req, resultId), { ...opts, backoff: ctx.backoff });
  } catch {
    const refusal = new UnavailableError(
      'queue_unavailable',
      'The work queue is unavailable. Retry the request as it is.',
      RETRY_AFTER_SECONDS,
      resultId,
    );
    const stored = await repo.storeAnswerIfPending(ctx.db.pool, resultId, refusal).then(
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
  resultId: string,
  readFirst: boolean,
  deadline = Date.now() + ctx.waitMs,
): Promise<Answer> {
  let read = readFirst;
  for (;;) {
    if (read) {
      // A failed read counts as "not yet": the request then ends in a 503 with its Location, never in a
      // 500 that a client without a key could not tell from "nothing was done".
      const row = await repo.findResult(ctx.db.pool, resultId).catch(() => null);
      if (row?.httpStatus != null) return answerOf(req, row.httpStatus, row.body);
    }
    const left = deadline - Date.now();
    if (left <= 0 || ctx.draining) throw resultPending(RETRY_AFTER_SECONDS, resultId);
    const answer = eventAnswer(req, await waiter.next(left));
    if (answer) return answer;
    // Woken without an answer (a failed job, a job that found its row finished) or out of time.
    read = true;
  }
}

/**
 * The answer a wake-up carried: a row's status and body (the poll) or the completion event's value,
 * whole (most refusals) or compact (the job's compactForm).
 */
function eventAnswer(req: SubmitRequest, value: unknown): Answer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const whole = value as Partial<Answer>;
  if (typeof whole.status === 'number' && 'body' in whole) return answerOf(req, whole.status, whole.body);
  return req.job.compactForm?.expand(value, req.payload);
}

/** A stored answer as the client gets it: a compact stored form is rebuilt from the request at hand. */
function answerOf(req: SubmitRequest, status: number, body: unknown): Answer {
  return req.job.compactForm?.expand(body, req.payload) ?? { status, body };
}
