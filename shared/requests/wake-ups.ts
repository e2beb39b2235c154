// How the requests an API process waits for are woken (shared/requests/waiters.ts): by the queues'
// completion events, and by one poll of request_results per process for every waiting request (events
// are lost while Redis reconnects).
import type { Database } from '../platform/db';
import type { JobQueues } from '../platform/queues';
import type { AnyQueuedRequestJob, BurstOutcome } from './job-declaration';
import * as repo from './request-result.repository';
import type { WaiterRegistry } from './waiters';

const POLL_BATCH = 500;

export interface WakeUpContext {
  db: Database;
  queues: JobQueues;
  jobs: readonly AnyQueuedRequestJob[];
  waiters: WaiterRegistry;
  /** The requests waiting on each burst job of several, so its `failed` event wakes them all. */
  burstMembers: Map<string, Set<string>>;
  polling: boolean;
}

/**
 * One listener per queue for every waiting request (not one per request). A burst's job completes with
 * every request's value in one event; its failure wakes each of its requests, which then read its row.
 */
export function listenForCompletions(ctx: WakeUpContext): () => void {
  const completed = ({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }) => {
    const burst = burstValues(returnvalue);
    if (!burst) return ctx.waiters.wake(jobId, returnvalue ?? undefined);
    for (const [id, value] of Object.entries(burst)) ctx.waiters.wake(id, value ?? undefined);
  };
  const failed = ({ jobId }: { jobId: string }) => {
    ctx.waiters.wake(jobId);
    ctx.burstMembers.get(jobId)?.forEach((id) => ctx.waiters.wake(id));
  };
  const events = ctx.jobs.map((job) => ctx.queues.events(job.queue));
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

/** A burst job's completion values by request id; undefined for a one-request job's value. */
function burstValues(returnvalue: unknown): BurstOutcome['burst'] | undefined {
  if (typeof returnvalue !== 'object' || returnvalue === null || !('burst' in returnvalue)) return undefined;
  const { burst } = returnvalue as BurstOutcome;
  return typeof burst === 'object' && burst !== null ? burst : undefined;
}

/** One query for every request this process waits for; skipped while the previous one still runs. */
export function pollWaiting(ctx: WakeUpContext): void {
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
