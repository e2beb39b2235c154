// The wait-for-result protocol for queued writes (design: "Request flows").
//
// The API stores a pending request_results row, adds a job whose id is the row's id, and waits for
// the worker to finish that row. The result lives in PostgreSQL, not in the job: a completion event
// only says "look now", and a poll of the row covers events lost while Redis reconnects. A request
// still unfinished at the deadline answers 503 + Retry-After; its work goes on, and a retry with the
// same Idempotency-Key picks up the stored result.
import { createHash, randomUUID } from 'node:crypto';
import type { Database } from '../platform/db';
import { ConflictError, resultPending, UnavailableError } from '../platform/errors';
import { JOBS, type JobKey, type JobQueues, type QueuedRequestData } from '../platform/jobs';
import { parseIdempotencyKey } from './idempotency-key';
import * as repo from './request-result.repository';

const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
const POLL_INTERVAL_MS = 500;
const RETRY_AFTER_SECONDS = 2;

export interface QueuedRequestOutcome {
  status: number;
  body: unknown;
}

interface SubmitRequest<P> {
  job: JobKey;
  endpoint: string;
  organisationId: number;
  accountId: number;
  idempotencyKey: string | undefined;
  /** X-Request-Id of the HTTP request, carried into the job's log lines. */
  traceId?: string;
  /** What the job carries: the validated request, no secrets. */
  payload: P;
}

export interface QueuedRequests {
  submit<P>(req: SubmitRequest<P>): Promise<QueuedRequestOutcome>;
  close(): void;
}

function hashRequest(endpoint: string, payload: unknown): string {
  return createHash('sha256').update(endpoint).update('\0').update(JSON.stringify(payload)).digest('hex');
}

export function createQueuedRequests(deps: { db: Database; queues: JobQueues; waitMs: number }): QueuedRequests {
  // jobId → wake-up callbacks, fed by one listener per QueueEvents (not one listener per request).
  const waiting = new Map<string, Set<() => void>>();
  const wake = ({ jobId }: { jobId: string }) => waiting.get(jobId)?.forEach((fn) => fn());
  const listened = new Set<JobKey>();
  const listen = (key: JobKey) => {
    if (listened.has(key)) return;
    listened.add(key);
    const events = deps.queues.events(key);
    events.on('completed', wake);
    events.on('failed', wake);
  };

  /**
   * Wake-ups for one request, registered before its job is added: an event that arrives while the
   * request is busy (adding the job, reading the row) is remembered, not lost, so the request never
   * sleeps a whole poll interval past its job's completion.
   */
  function watch(key: JobKey, id: string) {
    listen(key);
    let woken = false;
    let wakeUp: (() => void) | undefined;
    const callback = () => {
      woken = true;
      wakeUp?.();
    };
    const callbacks = waiting.get(id) ?? new Set();
    waiting.set(id, callbacks);
    callbacks.add(callback);
    return {
      /** Resolves at the next event for the job (at once if one came since the last call) or after `ms`. */
      next(ms: number): Promise<void> {
        return new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            wakeUp = undefined;
            woken = false;
            resolve();
          };
          const timer = setTimeout(done, woken ? 0 : ms);
          wakeUp = done;
        });
      },
      close() {
        callbacks.delete(callback);
        if (callbacks.size === 0) waiting.delete(id);
      },
    };
  }

  /** `readFirst`: the job may be done already (a replay); a job just added is first waited for. */
  async function waitForResult(watcher: ReturnType<typeof watch>, id: string, readFirst: boolean): Promise<QueuedRequestOutcome> {
    const deadline = Date.now() + deps.waitMs;
    if (!readFirst) await watcher.next(Math.min(POLL_INTERVAL_MS, deps.waitMs));
    for (;;) {
      const row = await repo.findResult(deps.db.pool, id);
      if (row?.httpStatus != null) return { status: row.httpStatus, body: row.body };
      const left = deadline - Date.now();
      if (left <= 0) throw resultPending(RETRY_AFTER_SECONDS);
      await watcher.next(Math.min(POLL_INTERVAL_MS, left));
    }
  }

  async function enqueue<P>(req: SubmitRequest<P>, id: string, replay: boolean): Promise<void> {
    const spec = JOBS[req.job];
    const data: QueuedRequestData<P> = {
      requestId: id,
      traceId: req.traceId,
      organisationId: req.organisationId,
      accountId: req.accountId,
      payload: req.payload,
    };
    const queue = deps.queues.queue(req.job);
    // A job that failed without storing an answer (e.g. the database was gone on its last attempt)
    // would make BullMQ ignore the re-add below for as long as the failed job is kept: clear it.
    if (replay) {
      const previous = await queue.getJob(id);
      if (previous && (await previous.isFailed())) await previous.remove();
    }
    // jobId = request id: adding the same request twice (a replay of a pending one) is a no-op in BullMQ.
    await queue.add(spec.name, data, {
      ...spec.options,
      jobId: id,
      // Completed jobs only feed the dashboard (the answer lives in PostgreSQL): keep few, as each
      // carries a whole request (~20 KB for 100 transactions).
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 24 * 3600 },
    });
  }

  return {
    async submit(req) {
      const bodyHash = hashRequest(req.endpoint, req.payload);
      const key = parseIdempotencyKey(req.idempotencyKey) ?? null;
      let { created, result } = await repo.createOrFindPending(deps.db.pool, {
        id: randomUUID(),
        organisationId: req.organisationId,
        endpoint: req.endpoint,
        idempotencyKey: key,
        bodyHash,
      });
      if (!created && Date.now() - result.createdAt.getTime() > IDEMPOTENCY_WINDOW_MS) {
        await repo.expireIdempotencyKey(deps.db.pool, result.id);
        ({ created, result } = await repo.createOrFindPending(deps.db.pool, {
          id: randomUUID(),
          organisationId: req.organisationId,
          endpoint: req.endpoint,
          idempotencyKey: key,
          bodyHash,
        }));
      }
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
        if (result.httpStatus < 500) return { status: result.httpStatus, body: result.body };
        await repo.reopenRetryable(deps.db.pool, result.id);
      }
      const watcher = watch(req.job, result.id);
      try {
        try {
          // Also for a replayed pending request: re-adding recovers a job lost with Redis data.
          await enqueue(req, result.id, !created);
        } catch {
          if (created && key === null) await repo.deleteResult(deps.db.pool, result.id).catch(() => undefined);
          throw new UnavailableError('queue_unavailable', 'The work queue is unavailable. Retry the request as it is.', RETRY_AFTER_SECONDS);
        }
        return await waitForResult(watcher, result.id, !created);
      } finally {
        watcher.close();
      }
    },
    close() {
      waiting.clear();
    },
  };
}
