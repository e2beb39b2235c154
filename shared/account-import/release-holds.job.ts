// The sweep of the account-creation lifecycle: a process stays IN_PROGRESS only while a creation job
// holds it. A hold whose job no longer exists (its worker or the whole service was killed and BullMQ
// gave the job up, its attempts were spent on faults, Redis lost it) or whose request is answered
// already would leave the process IN_PROGRESS for good, and the client polling it waiting for ever.
// Every minute the oldest such holds are released: ERRORED with latest_error creation_interrupted
// (UNKNOWN on v1), so a new process call or schedule may create the account. A job that is alive
// (waiting, delayed by a vendor's breaker, or active) keeps its hold.
import { Queue } from 'bullmq';
import type { Config } from '../platform/config';
import type { Database } from '../platform/db';
import { CLEAN_UP, connectionsFor } from '../platform/queues';
import type { ScheduledJob } from '../requests/job-declaration';
import { accountScheduleJob } from './account-creation.job';
import { findOldHolds } from './process-lifecycle.repository';
import { transition } from './process-lifecycle';

/** A hold younger than this is never looked at (a job between its start and its commit). */
export const HOLD_GRACE_MS = 120_000;
const MAX_PER_RUN = 500;
const ALIVE = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

/** Releases the holds of jobs that no longer exist; answers how many. */
export async function releaseAbandonedHolds(db: Database, config: Config, now: Date): Promise<number> {
  const holds = await findOldHolds(db.pool, new Date(now.getTime() - HOLD_GRACE_MS), MAX_PER_RUN);
  if (holds.length === 0) return 0;
  const connections = connectionsFor(config);
  // Both creation job kinds share one queue.
  const queue = new Queue(accountScheduleJob.queue, {
    connection: connections.producer(),
    prefix: config.QUEUE_PREFIX,
  });
  queue.on('error', () => undefined);
  let released = 0;
  try {
    for (const hold of holds) {
      if (!hold.answered) {
        const job = await queue.getJob(hold.heldBy);
        if (job && ALIVE.has(await job.getState())) continue;
      }
      const moved = await transition(db.pool, {
        process: { id: hold.id },
        event: 'release',
        now,
        holder: hold.heldBy,
        error: {
          code: 'creation_interrupted',
          detail:
            'The creation was interrupted (its worker stopped) before it finished; nothing was created. Process or schedule the account again.',
          attr: null,
          request_id: hold.heldBy === 'unrecorded' ? null : hold.heldBy,
          domain: 'import_process',
        },
      });
      if (moved !== undefined) released += 1;
    }
  } finally {
    await queue.close().catch(() => undefined);
    connections.release();
  }
  return released;
}

export const releaseHoldsJob: ScheduledJob = {
  queue: 'maintenance',
  name: 'release-account-holds',
  everyMs: 60_000,
  retry: { attempts: 3, backoff: { type: 'exponential', delay: 1000 } },
  cleanUp: CLEAN_UP,
  async run(ctx) {
    const released = await releaseAbandonedHolds(ctx.db, ctx.config, new Date());
    if (released > 0) ctx.logger.warn({ released }, 'account import processes held by vanished jobs released');
    return { released };
  },
};
