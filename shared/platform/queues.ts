// BullMQ plumbing: the Redis connections queues and workers use, the lock timings of every worker, and
// the queues a process opens. What runs on which queue is declared by the components (their *.job.ts
// files) and listed in shared/catalog/jobs.ts; this file knows no job.
import { Queue, QueueEvents, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { BLOCKING_OPTIONS, PRODUCER_OPTIONS, createRedis, type RedisClient, type RedisTarget } from './redis';
import type { Config } from './config';

// Completed jobs only feed the dashboard (the answer lives in PostgreSQL): keep few, as each carries a
// whole request (~20 KB for 100 transactions). Failed ones are kept for a day, and never more than a
// bounded number, so a storm of failures cannot fill Redis.
export const CLEAN_UP = {
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 24 * 3600, count: 5000 },
} satisfies JobsOptions;

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
  return { url: config.REDIS_URL, ...PRODUCER_OPTIONS };
}

export function blockingConnection(config: RedisTarget): ConnectionOptions {
  if (config.REDIS_CLUSTER_NODES) return createRedis(config, 'worker', { lazyConnect: true });
  return { url: config.REDIS_URL, ...BLOCKING_OPTIONS };
}

/**
 * The BullMQ prefix of one queue. BullMQ's scripts touch several keys of one queue at once (and never
 * two queues' keys: the service uses no parent/child flows), so a cluster needs each queue's keys in
 * one slot, not every queue's: on a Redis Cluster each queue gets a hash tag of its own,
 * `{import}` → `{import:transactions}` (keys `{import:transactions}:transactions:wait`, …), and the
 * queues spread over the masters. On a single Redis slots mean nothing and the prefix is QUEUE_PREFIX
 * as it is, so the keys of a running deployment stay where they are (docs/decisions/0011).
 */
export function queuePrefix(config: Pick<Config, 'QUEUE_PREFIX' | 'REDIS_CLUSTER_NODES'>, queue: string): string {
  if (!config.REDIS_CLUSTER_NODES) return config.QUEUE_PREFIX;
  const tag = /^\{([^{}]+)\}$/.exec(config.QUEUE_PREFIX)?.[1] ?? config.QUEUE_PREFIX.replace(/[{}]/g, '');
  return `{${tag}:${queue}}`;
}

/**
 * How long stopping waits for one Queue or QueueEvents to close. BullMQ waits for its ioredis client's
 * 'end' event, which a client closed while it waits to reconnect (Redis unreachable, or a fail-over that
 * dropped it) never emits: ioredis clears the reconnect timer and there is no socket left to close. So
 * the wait is bounded; giving it up leaves neither a socket nor a timer behind.
 */
export const CLOSE_WAIT_MS = 5_000;

async function closeWithin(closing: Promise<void>, ms = CLOSE_WAIT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([closing.catch(() => undefined), gaveUp]);
  } finally {
    clearTimeout(timer);
  }
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
  queue(name: string): Queue;
  events(name: string): QueueEvents;
  close(): Promise<void>;
}

/** One Queue and one QueueEvents per named queue for the whole process. */
export function createJobQueues(
  config: RedisTarget & Pick<Config, 'QUEUE_PREFIX'>,
  names: readonly string[],
): JobQueues {
  const queues = new Map<string, Queue>();
  const events = new Map<string, QueueEvents>();
  const connections = connectionsFor(config);
  const producer = connections.producer();
  for (const name of new Set(names)) {
    const queue = new Queue(name, { connection: producer, prefix: queuePrefix(config, name) });
    queue.on('error', () => undefined);
    queues.set(name, queue);
    const ev = new QueueEvents(name, { connection: connections.blocking(), prefix: queuePrefix(config, name) });
    ev.on('error', () => undefined);
    events.set(name, ev);
  }
  const known = <T>(map: Map<string, T>, name: string): T => {
    const found = map.get(name);
    if (!found) throw new Error(`queue ${name} is not open in this process`);
    return found;
  };
  return {
    queue: (name) => known(queues, name),
    events: (name) => known(events, name),
    async close() {
      await Promise.all([...events.values()].map((e) => closeWithin(e.close())));
      await Promise.all([...queues.values()].map((q) => closeWithin(q.close())));
      connections.release();
    },
  };
}
