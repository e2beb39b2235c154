// The job catalog: every queue and job the service has, with its retry policy. Queue and job names
// are persisted state (Redis keys, jobs waiting across a deploy): never rename one in place; add a
// new name and drain the old one.
import { Queue, QueueEvents, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { Config } from './config';
import { createRedis, type RedisClient, type RedisTarget } from './redis';

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

// BullMQ cannot tell cluster options from single-server ones, so a cluster is handed over as a client
// (not yet connected). Workers and QueueEvents duplicate it and own the copies; a Queue uses it as it
// is and leaves closing it to us.
export function producerConnection(config: RedisTarget): ConnectionOptions {
  if (config.REDIS_CLUSTER_NODES) return createRedis(config, 'producer', { lazyConnect: true });
  // Fail fast: an API request must not hang on an offline queue while Redis is down.
  return { url: config.REDIS_URL, enableOfflineQueue: false, maxRetriesPerRequest: 1 };
}

export function blockingConnection(config: RedisTarget): ConnectionOptions {
  if (config.REDIS_CLUSTER_NODES) return createRedis(config, 'worker', { lazyConnect: true });
  return { url: config.REDIS_URL, maxRetriesPerRequest: null };
}

const isClient = (c: ConnectionOptions): c is RedisClient => typeof (c as RedisClient).disconnect === 'function';

export interface JobQueues {
  queue(key: JobKey): Queue;
  events(key: JobKey): QueueEvents;
  close(): Promise<void>;
}

/** One Queue and one QueueEvents per queue name for the whole process. */
export function createJobQueues(config: RedisTarget & Pick<Config, 'QUEUE_PREFIX'>): JobQueues {
  const queues = new Map<string, Queue>();
  const events = new Map<string, QueueEvents>();
  const producer = producerConnection(config);
  for (const name of QUEUE_NAMES) {
    const queue = new Queue(name, { connection: producer, prefix: config.QUEUE_PREFIX });
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
      if (isClient(producer)) producer.disconnect();
    },
  };
}
