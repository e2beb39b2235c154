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
  // A job that failed without storing an answer (e.g. the database was gone on its last attempt)
  // would make BullMQ ignore the re-add below for as long as the failed job is kept: clear it.
  if (opts.replay) {
    const previous = await queue.getJob(data.requestId);
    if (previous && (await previous.isFailed())) await previous.remove();
  }
  await queue.add(spec.name, data, { ...spec.options, jobId: data.requestId });
}
