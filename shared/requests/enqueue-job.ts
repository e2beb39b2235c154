// Adding a queued request's job. Its id is the request's result id: adding the same request twice (a
// replay of a pending one) is a no-op in BullMQ, and re-adding recovers a job lost with Redis data.
import type { BackoffOptions, Job } from 'bullmq';
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
  // A job of this request's own kind is moved back to waiting in one step, carrying this request's data:
  // removed and added again, it would be absent for a moment, and the lost-job sweep could take its
  // request for lost and answer it 500 in between. A burst's job (another name) is replaced, as is a
  // delayed schedule (a retried job would not wait for its window).
  if (opts.replay) {
    const previous = await queue.getJob(data.resultId);
    const state = await previous?.getState();
    if (state === 'failed' || state === 'completed') {
      if (previous!.name === kind.name && !opts.delayMs && (await retried(previous!, state, data))) return;
      await previous!.remove();
    }
  }
  await queue.add(kind.name, data, {
    attempts: kind.retry.attempts,
    backoff: opts.backoff ?? kind.retry.backoff,
    ...kind.cleanUp,
    ...(opts.delayMs ? { delay: opts.delayMs } : {}),
    jobId: data.resultId,
  });
}

/** Moves a finished job back to waiting with `data`; false when it could not (taken or changed meanwhile). */
async function retried(job: Job, state: 'failed' | 'completed', data: QueuedRequestData): Promise<boolean> {
  try {
    await job.updateData(data);
    await job.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  } catch {
    return false;
  }
}
