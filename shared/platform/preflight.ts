// Start-up checks that turn "connection refused" into one line saying what is unreachable and how to
// start it.
import { Client } from 'pg';
import { Redis } from 'ioredis';

const HOW_TO_START = {
  postgres:
    "start it with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, or `docker compose up -d postgres`",
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

export async function checkRedis(redisUrl: string): Promise<void> {
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
  } catch (err) {
    throw new Error(`Redis is not reachable at ${redactUrl(redisUrl)} (${(err as Error).message}): ${HOW_TO_START.redis}.`, {
      cause: err,
    });
  } finally {
    redis.disconnect();
  }
}
