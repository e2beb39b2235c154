// The job catalog: every queue and job the service has, what its data is, how often it is retried and
// how long BullMQ keeps it. Queue and job names are persisted state (Redis keys, jobs waiting across a
// deploy): never rename one in place; add a new name and drain the old one.
import { Queue, QueueEvents, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { Config } from './config';
import { BLOCKING_OPTIONS, createRedis, type RedisClient, type RedisTarget } from './redis';
import { TransientError, type AppError } from './errors';
import type { CompactAnswer, JobPayload } from './job-payload';
import { paymentInstructionJobPayload } from '../payment-instructions/payment-instruction.job-payload';
import { compactTransactionsAnswer, transactionImportJobPayload } from '../transactions/transaction.job-payload';

interface RequestJobSpec<P> {
  queue: string;
  name: string;
  /** The endpoint the request came to: part of the Idempotency-Key's scope and of the body hash. */
  endpoint: string;
  payload: JobPayload<P>;
  /** How the answer rides on the completion event and is stored when not whole. */
  compactAnswer?: CompactAnswer;
  options: JobsOptions;
  /** What the request answers when its attempts are spent on faults that are not TransientErrors. */
  exhausted: () => AppError;
}

const requestJob = <P>(spec: RequestJobSpec<P>) => spec;

// Completed jobs only feed the dashboard (the answer lives in PostgreSQL): keep few, as each carries a
// whole request (~20 KB for 100 transactions). Failed ones are kept for a day, and never more than a
// bounded number, so a storm of failures cannot fill Redis.
const CLEAN_UP = {
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 24 * 3600, count: 5000 },
} satisfies JobsOptions;

export const JOBS = {
  importTransactions: requestJob({
    queue: 'transactions',
    name: 'import-transactions',
    endpoint: 'transactions/create',
    payload: transactionImportJobPayload,
    compactAnswer: compactTransactionsAnswer,
    options: { attempts: 5, backoff: { type: 'exponential', delay: 200 }, ...CLEAN_UP },
    exhausted: () =>
      new TransientError(
        'temporary_failure',
        'The transactions could not be imported because of a temporary failure. Retry the request as it is.',
      ),
  }),
  createPaymentInstruction: requestJob({
    queue: 'payment-instructions',
    name: 'create-payment-instruction',
    endpoint: 'payment-instruction/create',
    payload: paymentInstructionJobPayload,
    // Vendor faults are retried inside the caller's wait (RESULT_WAIT_MS): up to 6 attempts backing off
    // 0.25, 0.5, 1, 2, 4 s, fewer when the next one could not end within the wait (vendor-wait.ts); then
    // the request answers 500 "retry as-is".
    options: { attempts: 6, backoff: { type: 'exponential', delay: 250 }, ...CLEAN_UP },
    exhausted: () => new TransientError('server_error', 'An unexpected error occurred. Retry the request as it is.'),
  }),
};

export type JobKey = keyof typeof JOBS;
export type JobPayloadOf<K extends JobKey> = ReturnType<(typeof JOBS)[K]['payload']['fromJob']>;

/** Jobs the service schedules for itself (BullMQ job schedulers), on a queue of their own. */
export const MAINTENANCE = {
  queue: 'maintenance',
  purgeRequestResults: { schedulerId: 'purge-request-results', name: 'purge-request-results', everyMs: 3600_000 },
  options: { attempts: 3, backoff: { type: 'exponential', delay: 1000 }, ...CLEAN_UP },
} as const;

export const QUEUE_NAMES = [...new Set(Object.values(JOBS).map((j) => j.queue)), MAINTENANCE.queue];

/**
 * A worker process's pool: every running job holds one connection for its whole transaction, so the
 * pool has room for WORKER_CONCURRENCY jobs on each request queue plus the maintenance queue's one
 * (concurrency 1): 16 × 2 + 1 = 33 connections by default (docs/deployment.md "Connections").
 */
export function workerPoolSize(config: Pick<Config, 'DB_POOL_SIZE' | 'WORKER_CONCURRENCY'>): number {
  const requestQueues = QUEUE_NAMES.length - 1;
  return Math.max(config.DB_POOL_SIZE, config.WORKER_CONCURRENCY * requestQueues + 1);
}

/** Data every queued request's job carries: the stored result row it must complete, and who asked. */
export interface QueuedRequestData<P = unknown> {
  requestId: string;
  /** X-Request-Id of the HTTP request that enqueued the job, for log correlation. */
  traceId?: string;
  organisationId: number;
  accountId: number;
  /** The payload's JobPayload version when the API validated it; absent on jobs queued before versions. */
  version?: number;
  payload: P;
}

/**
 * How fast a dead worker's jobs come back (BullMQ's defaults take 30–60 s, longer than RESULT_WAIT_MS).
 * BullMQ's lock manager ticks every lockRenewTime/2 and renews the locks older than that, so a running
 * job's lock is renewed every 0.5–1 s. A SIGKILLed worker's locks lapse at most lockDuration after the
 * kill, and the next stalled check by any live worker of the queue (every stalledInterval, and once when a
 * worker starts) moves the job back to wait: taken up again within lockDuration + stalledInterval = 5.5 s.
 * A live worker keeps its locks through anything shorter than lockDuration − lockRenewTime = 4 s without a
 * renewal: an event-loop stall (the fault suite sees ~0.2 s at most) or a Redis outage plus the reconnect
 * (at most 1 s after Redis is back, see BLOCKING_OPTIONS). Past that the job runs again, and that run finds
 * its result row finished (the work and the result commit together under a row lock) and does nothing.
 * maxStalledCount bounds a job that kills every worker taking it (a poison job): its fourth stall fails it.
 */
export const WORKER_LOCK_OPTIONS = {
  lockDuration: 5_000,
  lockRenewTime: 1_000,
  stalledInterval: 500,
  maxStalledCount: 3,
} as const;

// BullMQ cannot tell cluster options from single-server ones, so a cluster is handed over as a client
// (not yet connected). BullMQ owns only the copies it makes of it (a Worker's blocking connection,
// QueueEvents'); a Queue's and a Worker's own connection is the client itself, which BullMQ never
// closes: the service makes its connections through connectionsFor, which closes them once the BullMQ
// objects are closed, or their reconnect timers would outlive the process's stop.
export function producerConnection(config: RedisTarget): ConnectionOptions {
  if (config.REDIS_CLUSTER_NODES) return createRedis(config, 'producer', { lazyConnect: true });
  // Fail fast: an API request must not hang on an offline queue while Redis is down.
  return { url: config.REDIS_URL, enableOfflineQueue: false, maxRetriesPerRequest: 1 };
}

export function blockingConnection(config: RedisTarget): ConnectionOptions {
  if (config.REDIS_CLUSTER_NODES) return createRedis(config, 'worker', { lazyConnect: true });
  return { url: config.REDIS_URL, ...BLOCKING_OPTIONS };
}

const isClient = (c: ConnectionOptions): c is RedisClient => typeof (c as RedisClient).disconnect === 'function';

/**
 * The connections one owner hands to its BullMQ objects, remembered: `release`, called once those
 * objects are closed, closes the clients among them (a cluster's; single-server options BullMQ owns).
 */
export function connectionsFor(config: RedisTarget) {
  const made: ConnectionOptions[] = [];
  const keep = (c: ConnectionOptions) => (made.push(c), c);
  return {
    producer: () => keep(producerConnection(config)),
    blocking: () => keep(blockingConnection(config)),
    release: () => made.forEach((c) => isClient(c) && c.disconnect()),
  };
}

export interface JobQueues {
  queue(key: JobKey): Queue;
  events(key: JobKey): QueueEvents;
  close(): Promise<void>;
}

/** One Queue and one QueueEvents per request queue for the whole process. */
export function createJobQueues(config: RedisTarget & Pick<Config, 'QUEUE_PREFIX'>): JobQueues {
  const queues = new Map<string, Queue>();
  const events = new Map<string, QueueEvents>();
  const connections = connectionsFor(config);
  const producer = connections.producer();
  for (const name of new Set(Object.values(JOBS).map((j) => j.queue))) {
    const queue = new Queue(name, { connection: producer, prefix: config.QUEUE_PREFIX });
    queue.on('error', () => undefined);
    queues.set(name, queue);
    const ev = new QueueEvents(name, { connection: connections.blocking(), prefix: config.QUEUE_PREFIX });
    ev.on('error', () => undefined);
    events.set(name, ev);
  }
  return {
    queue: (key) => queues.get(JOBS[key].queue)!,
    events: (key) => events.get(JOBS[key].queue)!,
    async close() {
      await Promise.all([...events.values()].map((e) => e.close()));
      await Promise.all([...queues.values()].map((q) => q.close()));
      connections.release();
    },
  };
}
