// Start-up checks that turn "connection refused" into one line saying what is unreachable and how to
// start it.
import { Client } from 'pg';
import { Redis } from 'ioredis';
import type { RedisTarget } from './redis';

const HOW_TO_START = {
  postgres:
    'start it with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, or `docker compose up -d postgres`',
  redis:
    'start it with `redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no`, or `docker compose up -d redis`',
};

function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

export async function checkPostgres(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new Error(
      `PostgreSQL is not reachable at ${redactUrl(databaseUrl)} (${(err as Error).message}): ${HOW_TO_START.postgres}.`,
      { cause: err },
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function checkRedis(target: RedisTarget): Promise<void> {
  // A cluster is reachable when any of its seed nodes answers: the client learns the rest from it.
  const seeds = target.REDIS_CLUSTER_NODES?.map(
    (n) => `redis://${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`,
  ) ?? [target.REDIS_URL];
  const failures: string[] = [];
  for (const url of seeds) {
    const failure = await pingRedis(url);
    if (failure === undefined) return;
    failures.push(`${redactUrl(url)} (${failure})`);
  }
  throw new Error(`Redis is not reachable at ${failures.join(', ')}: ${HOW_TO_START.redis}.`);
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
