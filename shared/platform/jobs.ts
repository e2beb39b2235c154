// The job catalog: every queue and job the service has, with its retry policy. Queue and job names
// are persisted state (Redis keys, jobs waiting across a deploy): never rename one in place; add a
// new name and drain the old one.
import { Queue, QueueEvents, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { Config } from './config';

export const JOBS = {
  importTransactions: {
    queue: 'transactions',
    name: 'import-transactions',
    options: { attempts: 5, backoff: { type: 'exponential', delay: 200 } },
  },
  createPaymentInstruction: {
    queue: 'payment-instructions',
    name: 'create-payment-instruction',
    // Vendor faults are retried inside the caller's wait (RESULT_WAIT_MS): 6 attempts back off
    // 0.25 + 0.5 + 1 + 2 + 4 s ≈ 8 s before the request answers 500 "retry as-is".
    options: { attempts: 6, backoff: { type: 'exponential', delay: 250 } },
  },
} as const satisfies Record<string, { queue: string; name: string; options: JobsOptions }>;

export type JobKey = keyof typeof JOBS;
export const QUEUE_NAMES = [...new Set(Object.values(JOBS).map((j) => j.queue))];

/** A worker process's pool: every running job holds one connection for its whole transaction. */
export function workerPoolSize(config: Pick<Config, 'DB_POOL_SIZE' | 'WORKER_CONCURRENCY'>): number {
  return Math.max(config.DB_POOL_SIZE, config.WORKER_CONCURRENCY * QUEUE_NAMES.length);
}

/** Data every queued request carries: the stored result row it must complete, and who asked. */
export interface QueuedRequestData<P = unknown> {
  requestId: string;
  /** X-Request-Id of the HTTP request that enqueued the job, for log correlation. */
  traceId?: string;
  organisationId: number;
  accountId: number;
  payload: P;
}

/**
 * How fast a dead worker's jobs come back (BullMQ's defaults take 30–60 s, longer than RESULT_WAIT_MS).
 * A running job's lock is renewed at least every lockDuration/2 (BullMQ's lock manager ticks every
 * lockDuration/4), so a SIGKILLed worker's locks lapse at most lockDuration after the kill, and the next
 * stalled check by any live worker of the queue (every stalledInterval, and once when a worker starts)
 * moves the job back to wait: taken up again within lockDuration + stalledInterval = 5.5 s.
 * A live worker loses a lock only if its event loop stalls for 2.5 s (the fault suite sees ~1 s at most); the
 * job then runs again, and that run finds its result row finished (the work and the result commit
 * together under a row lock) and does nothing. maxStalledCount bounds a job that kills every worker
 * taking it (a poison job): its fourth stall fails it.
 */
export const WORKER_LOCK_OPTIONS = { lockDuration: 5_000, stalledInterval: 500, maxStalledCount: 3 } as const;

export function producerConnection(config: Pick<Config, 'REDIS_URL'>): ConnectionOptions {
  // Fail fast: an API request must not hang on an offline queue while Redis is down.
  return { url: config.REDIS_URL, enableOfflineQueue: false, maxRetriesPerRequest: 1 };
}

export function blockingConnection(config: Pick<Config, 'REDIS_URL'>): ConnectionOptions {
  return { url: config.REDIS_URL, maxRetriesPerRequest: null };
}

export interface JobQueues {
  queue(key: JobKey): Queue;
  events(key: JobKey): QueueEvents;
  close(): Promise<void>;
}

/** One Queue and one QueueEvents per queue name for the whole process. */
export function createJobQueues(config: Pick<Config, 'REDIS_URL' | 'QUEUE_PREFIX'>): JobQueues {
  const queues = new Map<string, Queue>();
  const events = new Map<string, QueueEvents>();
  for (const name of QUEUE_NAMES) {
    const queue = new Queue(name, { connection: producerConnection(config), prefix: config.QUEUE_PREFIX });
    queue.on('error', () => undefined);
    queues.set(name, queue);
    const ev = new QueueEvents(name, { connection: blockingConnection(config), prefix: config.QUEUE_PREFIX });
    ev.on('error', () => undefined);
    events.set(name, ev);
  }
  return {
    queue: (key) => queues.get(JOBS[key].queue)!,
    events: (key) => events.get(JOBS[key].queue)!,
    async close() {
      await Promise.all([...events.values()].map((e) => e.close()));
      await Promise.all([...queues.values()].map((q) => q.close()));
    },
  };
}
