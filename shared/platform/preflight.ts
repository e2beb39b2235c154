// Start-up checks that turn a failed connection into one line saying what is wrong and what to do.
import { Client } from 'pg';
import { Redis } from 'ioredis';
import { describeConnectFailure, isMissingDatabase, redactUrl } from './pg-errors';
import type { RedisTarget } from './redis';

const HOW_TO_START = {
  redis:
    'start it with `redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no`, or `docker compose up -d redis`',
};

/**
 * Connects to the database the URL names (never to another one: behind a pooler or with a role that
 * may use only its own database, nothing else is reachable) and runs one query. A missing database is
 * accepted when `mayBeMissing` (start-up migration creates it); every other failure throws one
 * sentence saying what is wrong.
 */
export async function checkPostgres(databaseUrl: string, opts: { mayBeMissing?: boolean } = {}): Promise<void> {
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  // A server that drops the connection after a failed start-up emits 'error' besides rejecting.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    if (opts.mayBeMissing && isMissingDatabase(err)) return;
    throw new Error(describeConnectFailure(err, databaseUrl), { cause: err });
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function checkRedis(target: RedisTarget): Promise<void> {
  // A cluster is reachable when any of its seed nodes answers: the client learns the rest from it.
  const seeds = target.REDIS_CLUSTER_NODES?.map((n) => clusterSeedUrl(target, n)) ?? [target.REDIS_URL];
  const failures: string[] = [];
  for (const url of seeds) {
    const failure = await pingRedis(url);
    if (failure === undefined) return;
    failures.push(`${redactUrl(url)} (${failure})`);
  }
  throw new Error(`Redis is not reachable at ${failures.join(', ')}: ${HOW_TO_START.redis}.`);
}

/** A cluster seed node as a URL with the cluster's scheme and credentials (REDIS_CLUSTER_TLS, _USERNAME, _PASSWORD). */
function clusterSeedUrl(target: RedisTarget, node: { host: string; port: number }): string {
  const scheme = target.REDIS_CLUSTER_TLS ? 'rediss' : 'redis';
  const user = target.REDIS_CLUSTER_USERNAME ? encodeURIComponent(target.REDIS_CLUSTER_USERNAME) : '';
  const password = target.REDIS_CLUSTER_PASSWORD ? `:${encodeURIComponent(target.REDIS_CLUSTER_PASSWORD)}` : '';
  const auth = user || password ? `${user}${password}@` : '';
  const host = node.host.includes(':') ? `[${node.host}]` : node.host;
  return `${scheme}://${auth}${host}:${node.port}`;
}

/** Undefined when the server answers PING, else why not. */
async function pingRedis(redisUrl: string): Promise<string | undefined> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  } finally {
    redis.disconnect();
  }
}
