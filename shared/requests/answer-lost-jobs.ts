// A queued request whose job is gone from Redis (evicted, lost with a Redis that restarted without its
// data, or removed a day after it failed without storing an answer) would stay pending for ever:
// no worker will ever finish it. The maintenance run answers such a request with its job's final 500
// "retry the request as it is". That answer is always safe: a job's work and its request's answer
// commit together, so a pending request has written nothing, and a job that still turns up later finds
// its request finished and does nothing. Re-adding the job instead is not possible: only the job held
// the request's body.
import { Queue } from 'bullmq';
import type { Config } from '../platform/config';
import type { Database } from '../platform/db';
import { connectionsFor, queuePrefix } from '../platform/queues';
import type { AnyQueuedRequestJob } from './job-declaration';
import { storeAnswerIfPending } from './request-result.repository';

// One run looks at the oldest this many pending requests (the next run goes on), bounding its work.
const MAX_PER_RUN = 1000;

/**
 * Answers the pending requests older than RESULT_WAIT_MS whose job is no longer in its queue. A job that
 * failed without storing an answer is left to a retry with the same key (which re-adds it) until BullMQ
 * removes it a day later. Returns how many it answered.
 */
export async function answerLostJobs(
  db: Database,
  config: Config,
  jobs: readonly AnyQueuedRequestJob[],
  now: Date,
): Promise<number> {
  const cutoff = new Date(now.getTime() - config.RESULT_WAIT_MS);
  // Served by the partial index of pending rows (migration request_results_pending).
  const { rows } = await db.pool.query<{ id: string; endpoint: string }>(
    `SELECT id, endpoint FROM request_results
      WHERE finished_at IS NULL AND created_at < $1
      ORDER BY created_at LIMIT $2`,
    [cutoff, MAX_PER_RUN],
  );
  if (rows.length === 0) return 0;
  const connections = connectionsFor(config);
  const producer = connections.producer();
  const queues = new Map<string, Queue>();
  const queueOf = (kind: AnyQueuedRequestJob) => {
    const name = kind.queue;
    const queue = queues.get(name) ?? new Queue(name, { connection: producer, prefix: queuePrefix(config, name) });
    queue.on('error', () => undefined);
    queues.set(name, queue);
    return queue;
  };
  let answered = 0;
  try {
    for (const row of rows) {
      const kind = jobs.find((j) => j.endpoint === row.endpoint);
      if (!kind) continue;
      if (await queueOf(kind).getJob(row.id)) continue;
      await storeAnswerIfPending(db.pool, row.id, kind.exhausted());
      answered += 1;
    }
  } finally {
    await Promise.all([...queues.values()].map((q) => q.close().catch(() => undefined)));
    connections.release();
  }
  return answered;
}
