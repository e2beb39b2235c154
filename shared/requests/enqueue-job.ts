// Adding a queued request's job. Its id is the request's result id: adding the same request twice (a
// replay of a pending one) is a no-op in BullMQ, and re-adding recovers a job lost with Redis data.
import type { BackoffOptions } from 'bullmq';
import type { JobQueues } from '../platform/queues';
import type { AnyQueuedRequestJob, QueuedRequestData } from './job-declaration';

export async function enqueueJob(
  queues: JobQueues,
  kind: AnyQueuedRequestJob,
  data: QueuedRequestData,
  opts: { replay: boolean; backoff?: BackoffOptions; delayMs?: number },
): Promise<void> {
  const queue = queues.queue(kind.queue);
  // A finished job whose request is (again) unanswered would make BullMQ ignore the re-add below for
  // as long as it is kept: one that failed without storing an answer (the database was gone on its
  // last attempt), or one that completed doing nothing because the API had stored 503 queue_unavailable
  // (Redis took the job but its reply was lost) before this retry reopened the request. Clear it.
  if (opts.replay) {
    const previous = await queue.getJob(data.resultId);
    const state = await previous?.getState();
    if (state === 'failed' || state === 'completed') await previous!.remove();
  }
  await queue.add(kind.name, data, {
    attempts: kind.retry.attempts,
    backoff: opts.backoff ?? kind.retry.backoff,
    ...kind.cleanUp,
    ...(opts.delayMs ? { delay: opts.delayMs } : {}),
    jobId: data.resultId,
  });
}
