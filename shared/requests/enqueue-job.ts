// Adding a queued request's job. Its id is the request id: adding the same request twice (a replay of
// a pending one) is a no-op in BullMQ, and re-adding recovers a job lost with Redis data.
import { JOBS, type JobKey, type JobQueues, type QueuedRequestData } from '../platform/jobs';

export async function enqueueJob(
  queues: JobQueues,
  key: JobKey,
  data: QueuedRequestData,
  opts: { replay: boolean },
): Promise<void> {
  const spec = JOBS[key];
  const queue = queues.queue(key);
  // A finished job whose request is (again) unanswered would make BullMQ ignore the re-add below for
  // as long as it is kept: one that failed without storing an answer (the database was gone on its
  // last attempt), or one that completed doing nothing because the API had stored 503 queue_unavailable
  // (Redis took the job but its reply was lost) before this retry reopened the request. Clear it.
  if (opts.replay) {
    const previous = await queue.getJob(data.requestId);
    const state = await previous?.getState();
    if (state === 'failed' || state === 'completed') await previous!.remove();
  }
  await queue.add(spec.name, data, { ...spec.options, jobId: data.requestId });
}
