// Redis connections by role. Producers (the API) fail fast when Redis is away so a request never hangs
// on an offline queue; BullMQ workers and QueueEvents block on Redis and must retry forever. With
// REDIS_CLUSTER_NODES set every connection is a Redis Cluster client instead (see README, "Redis Cluster").
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Config } from './config';

export type RedisRole = 'producer' | 'worker';
/** A single Redis server or a Redis Cluster: every command the service sends works on either. */
export type RedisClient = Redis | Cluster;
export type RedisTarget = Pick<Config, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'> &
  Partial<Pick<Config, 'REDIS_CLUSTER_USERNAME' | 'REDIS_CLUSTER_PASSWORD' | 'REDIS_CLUSTER_TLS'>>;

/**
 * Longest wait between reconnect attempts. BullMQ's own schedule grows to 20 s, so a worker could stay away
 * for many seconds after a long Redis outage ended, its job locks lapsing meanwhile (see WORKER_LOCK_OPTIONS).
 */
const RECONNECT_MAX_DELAY_MS = 1_000;

/**
 * A fail-over turns the server under a connection into a replica: it refuses writes (`READONLY`) and
 * ends blocked reads (`UNBLOCKED`). A managed Redis's endpoint then names the new master, but only to a
 * new connection, so on either reply the connection reconnects and sends the command again (2): a
 * producer's command fails once (it keeps no offline queue; its caller answers 503), a blocking one waits
 * for the reconnect. In a cluster the command sent again meets MOVED and goes to the slot's new master.
 */
function reconnectOnRoleChange(err: Error): 2 | false {
  const reply = err.message.slice(0, 16);
  return reply.startsWith('READONLY ') || reply.startsWith('UNBLOCKED ') ? 2 : false;
}

/**
 * The options of a connection that blocks on Redis (BullMQ workers, QueueEvents): commands wait for a
 * reconnect instead of failing, and reconnect attempts come 100, 200, … ms apart, then every
 * RECONNECT_MAX_DELAY_MS.
 */
export const BLOCKING_OPTIONS = {
  maxRetriesPerRequest: null,
  retryStrategy: (times: number): number => Math.min(times * 100, RECONNECT_MAX_DELAY_MS),
  reconnectOnError: reconnectOnRoleChange,
};

/** A producer (the API) fails fast: a request must not hang on an offline queue while Redis is away. */
export const PRODUCER_OPTIONS = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  reconnectOnError: reconnectOnRoleChange,
};

const ROLE_OPTIONS: Record<RedisRole, RedisOptions> = {
  producer: PRODUCER_OPTIONS,
  worker: BLOCKING_OPTIONS,
};

export function createRedis(target: RedisTarget, role: RedisRole, opts: { lazyConnect?: boolean } = {}): RedisClient {
  const { enableOfflineQueue, ...perNode } = ROLE_OPTIONS[role];
  const lazyConnect = opts.lazyConnect ?? false;
  const redis = target.REDIS_CLUSTER_NODES
    ? new Cluster(target.REDIS_CLUSTER_NODES, {
        lazyConnect,
        enableOfflineQueue,
        // Every command on the masters (ioredis's default, stated): a replica may lag behind its master.
        scaleReads: 'master',
        ...clusterNodeOptions(target, perNode),
      })
    : new Redis(target.REDIS_URL, { ...ROLE_OPTIONS[role], lazyConnect });
  // Connection errors surface through the calls that need Redis; without a listener ioredis would
  // print every reconnect attempt.
  redis.on('error', () => undefined);
  return redis;
}

/**
 * What every node of a cluster is connected with: the role's options, the ACL user and password, and
 * TLS. With TLS the nodes' addresses are used as they are announced (no DNS look-up to an IP), so a
 * managed cluster's certificate, issued for its host names, verifies.
 */
export function clusterNodeOptions(
  target: RedisTarget,
  perNode: RedisOptions,
): Pick<ClusterOptions, 'redisOptions' | 'dnsLookup'> {
  const redisOptions: RedisOptions = { ...perNode };
  if (target.REDIS_CLUSTER_USERNAME !== undefined) redisOptions.username = target.REDIS_CLUSTER_USERNAME;
  if (target.REDIS_CLUSTER_PASSWORD !== undefined) redisOptions.password = target.REDIS_CLUSTER_PASSWORD;
  if (!target.REDIS_CLUSTER_TLS) return { redisOptions };
  return {
    redisOptions: { ...redisOptions, tls: {} },
    dnsLookup: (address, callback) => callback(null, address),
  };
}

/**
 * Runs a command on every master of a cluster (on the one server otherwise) and answers the first
 * reply: for keyless commands such as SCRIPT LOAD, whose effect must exist wherever a key may live.
 */
export async function callOnEveryMaster(redis: RedisClient, command: string, ...args: string[]): Promise<unknown> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  const replies = await Promise.all(nodes.map((node) => node.call(command, ...args)));
  return replies[0];
}

/** Resolves once the connection is ready, or after `timeoutMs` (callers then meet errors per call). */
export async function untilReady(redis: RedisClient, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    }
    redis.on('ready', done);
  });
}
