// A queued request whose job can no longer answer it would stay pending for ever: its job is gone from
// Redis (evicted, lost with a Redis that restarted without its data, removed a day after it failed), or
// its job failed (its attempts were spent on a database that refused every one of them, so not even its
// final answer could be stored), or completed without answering it (a retry reopened the request after
// its job had finished). A sweep every minute (answerLostJobsJob) answers such a request with its job's
// final 500 "retry the request as it is". That answer is always safe: a job's work and its request's
// answer commit together, so a pending request has written nothing, and a job that still runs later
// finds its request finished and does nothing. Re-adding the job instead is not possible: only the job
// held the request's body.
import { Queue } from 'bullmq';
import type { Config } from '../platform/config';
import type { Database } from '../platform/db';
import { CLEAN_UP, connectionsFor, queuePrefix } from '../platform/queues';
import type { AnyQueuedRequestJob, ScheduledJob } from './job-declaration';
import { storeAnswerIfPending } from './request-result.repository';

// One run looks at the oldest this many pending requests (the next run goes on), bounding its work.
const MAX_PER_RUN = 1000;
/**
 * How long a failed or completed job is left to an operator's retry (or a client's, which re-adds it)
 * before its still-pending requests are answered: one sweep interval or two.
 */
export const FINISHED_JOB_GRACE_MS = 60_000;
/** States in which a job will still run (and answer its requests). */
const LIVE_STATES = new Set(['active', 'waiting', 'wait', 'delayed', 'prioritized', 'waiting-children']);

/** Every minute: the pending requests no job will answer get their 500 "retry as it is". */
export const answerLostJobsJob: ScheduledJob = {
  queue: 'maintenance',
  name: 'answer-lost-requests',
  everyMs: 60_000,
  retry: { attempts: 3, backoff: { type: 'exponential', delay: 1000 } },
  cleanUp: CLEAN_UP,
  async run(ctx) {
    const lost = await answerLostJobs(ctx.db, ctx.config, ctx.queuedRequestJobs, new Date());
    if (lost > 0)
      ctx.logger.warn({ lost }, 'pending requests whose job is gone, failed or done answered 500 (retry as it is)');
    return { lost };
  },
};

/**
 * Answers the pending requests older than RESULT_WAIT_MS that no job will answer: none of their jobs
 * (a burst's, named by job_id, and one of their own, which a replay adds) is in Redis in a state that
 * still runs, nor finished less than FINISHED_JOB_GRACE_MS ago. Returns how many it answered.
 */
export async function answerLostJobs(
  db: Database,
  config: Config,
  jobs: readonly AnyQueuedRequestJob[],
  now: Date,
): Promise<number> {
  const cutoff = new Date(now.getTime() - config.RESULT_WAIT_MS);
  // Served by the partial index of pending rows (migration request_results_pending).
  const { rows } = await db.pool.query<{ id: string; endpoint: string; jobId: string | null }>(
    `SELECT id, endpoint, job_id AS "jobId" FROM request_results
      WHERE finished_at IS NULL AND created_at < $1
      ORDER BY created_at LIMIT $2`,
    [cutoff, MAX_PER_RUN],
  );
  if (rows.length === 0) return 0;
  const connections = connectionsFor(config);
  const producer = connections.producer();
  const queues = new Map<string, Queue>();
  const queueOf = (name: string) => {
    const queue = queues.get(name) ?? new Queue(name, { connection: producer, prefix: queuePrefix(config, name) });
    queue.on('error', () => undefined);
    queues.set(name, queue);
    return queue;
  };
  // A burst's job is looked at once for all of its requests.
  const seen = new Map<string, Promise<boolean>>();
  const willAnswer = (queue: string, jobId: string) => {
    const key = `${queue}\0${jobId}`;
    const known = seen.get(key) ?? jobWillAnswer(queueOf(queue), jobId, now.getTime());
    seen.set(key, known);
    return known;
  };
  let answered = 0;
  try {
    for (const row of rows) {
      const kind = jobs.find((j) => j.endpoint === row.endpoint);
      if (!kind) continue;
      const ids = row.jobId && row.jobId !== row.id ? [row.jobId, row.id] : [row.id];
      const live = await Promise.all(ids.map((id) => willAnswer(kind.queue, id)));
      if (live.some(Boolean)) continue;
      await storeAnswerIfPending(db.pool, row.id, kind.exhausted());
      answered += 1;
    }
  } finally {
    await Promise.all([...queues.values()].map((q) => q.close().catch(() => undefined)));
    connections.release();
  }
  return answered;
}

/** Whether the job exists and will still run, or finished too recently to be given up on. */
async function jobWillAnswer(queue: Queue, jobId: string, now: number): Promise<boolean> {
  const job = await queue.getJob(jobId);
  if (!job) return false;
  const state = await job.getState();
  if (LIVE_STATES.has(state)) return true;
  // 'unknown': a job hash in no list, which nothing will run.
  if (state !== 'failed' && state !== 'completed') return false;
  return now - (job.finishedOn ?? now) < FINISHED_JOB_GRACE_MS;
}
