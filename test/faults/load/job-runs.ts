// Every run of every job during the suite, read from BullMQ's event stream: a run starts with an
// "active" event, and a job without a live lock is moved back by the stalled check with a "stalled"
// event. A stall follows a killed worker, a lock that lapsed on a live worker (the job then runs twice,
// which the suite checks against the workers' own log lines), or a fetch whose answer Redis never sent.
import { QueueEvents } from 'bullmq';
import { WORKER_QUEUES } from '../../../shared/catalog/jobs';

export interface JobRuns {
  /** Runs started per job id (a first run, retries after a fault, redeliveries after a stall). */
  runs: Map<string, number>;
  /** Job ids the stalled check moved back to wait, with when this process heard of it (epoch ms). */
  stalled: Map<string, number>;
  close(): Promise<void>;
}

export async function trackJobRuns(redisUrl: string, prefix: string): Promise<JobRuns> {
  const runs = new Map<string, number>();
  const stalled = new Map<string, number>();
  const listeners = WORKER_QUEUES.map((name) => {
    // Reconnects on its own after the suite's Redis restarts (AOF keeps the stream and its ids).
    const events = new QueueEvents(name, { connection: { url: redisUrl, maxRetriesPerRequest: null }, prefix });
    events.on('error', () => undefined);
    events.on('active', ({ jobId }) => runs.set(jobId, (runs.get(jobId) ?? 0) + 1));
    events.on('stalled', ({ jobId }) => stalled.set(jobId, Date.now()));
    return events;
  });
  await Promise.all(listeners.map((l) => l.waitUntilReady()));
  return {
    runs,
    stalled,
    async close() {
      await Promise.all(listeners.map((l) => l.close()));
    },
  };
}
