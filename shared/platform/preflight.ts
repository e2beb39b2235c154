// Start-up checks that turn a failed connection into one line saying what is wrong and what to do.
import { Client } from 'pg';
import { Redis } from 'ioredis';
import { describeConnectFailure, isDatabaseUnavailable, isMissingDatabase, redactUrl } from './pg-errors';
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
  // Both bounded: through a pooler whose server connections are all busy, the login may wait for
  // one and so may the query (start-up tries again: waitThroughStartup).
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000, query_timeout: 3000 });
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

/** What a start-up step waits for, named in the line printed when the wait runs out. */
export type StartupWaitTarget = 'pool' | 'migration lock';

const WAITED_ON: Record<StartupWaitTarget, string> = {
  pool: 'a database connection (PostgreSQL, or the pooler in front of it, was busy or refusing: a pool full of other replicas migrating, too many connections, a restart)',
  'migration lock': 'the migration lock (another process was applying migrations)',
};

// Nothing at the address at all: start-up says so at once ("start it with …"), as on a developer's
// machine without PostgreSQL; an orchestrator restarts the process. Busy or refusing servers are waited for.
const NOTHING_LISTENS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

function nothingListens(err: unknown): boolean {
  const queue: unknown[] = [err];
  for (let seen = 0; seen < 8 && queue.length > 0; seen++) {
    const node = queue.shift() as { code?: unknown; cause?: unknown; errors?: unknown } | null | undefined;
    if (typeof node !== 'object' || node === null) continue;
    if (typeof node.code === 'string' && NOTHING_LISTENS.has(node.code)) return true;
    queue.push(node.cause, ...(Array.isArray(node.errors) ? (node.errors as unknown[]).slice(0, 4) : []));
  }
  return false;
}

/**
 * Why a failed start-up step is worth another try, or undefined when it is not: a refused, dropped or
 * slow connection (the pool busy), or the migration lock not free within the lock time-out (55P03).
 */
export function startupWaitTarget(err: unknown): StartupWaitTarget | undefined {
  if (nothingListens(err)) return undefined;
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if ((current as { code?: unknown }).code === '55P03') return 'migration lock';
    current = current.cause;
  }
  if (isDatabaseUnavailable(err)) return 'pool';
  current = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const message = current.message.slice(0, 300);
    // pg's words for its connect and query time-outs.
    if (message.includes('timeout expired') || message.includes('Query read timeout')) return 'pool';
    current = current.cause;
  }
  return undefined;
}

/**
 * Runs `step` until it succeeds, trying again after a back-off (0.25 s doubling to 5 s) while it fails
 * for a reason worth waiting out (startupWaitTarget), for at most `budgetMs` in all. `step` is handed
 * the time left, to bound its own waits (the migration lock's). When the budget runs out, throws one
 * sentence naming what it waited on and the last failure; any other failure is thrown at once.
 */
export async function waitThroughStartup<T>(
  budgetMs: number,
  step: (remainingMs: number) => Promise<T>,
  clock: { now(): number; sleep(ms: number): Promise<void> } = {
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  },
): Promise<T> {
  const deadline = clock.now() + budgetMs;
  for (let pause = 250; ; pause = Math.min(pause * 2, 5000)) {
    try {
      return await step(Math.max(1000, deadline - clock.now()));
    } catch (err) {
      const target = startupWaitTarget(err);
      if (target === undefined) throw err;
      const left = deadline - clock.now();
      if (left <= 0) {
        throw new Error(
          `gave up after waiting ${Math.round(budgetMs / 1000)} s (STARTUP_WAIT_MS) for ${WAITED_ON[target]}; last: ${(err as Error).message.slice(0, 500)}`,
          { cause: err },
        );
      }
      await clock.sleep(Math.min(pause, left));
    }
  }
}
