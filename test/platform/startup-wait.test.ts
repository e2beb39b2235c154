// Start-up waits for a busy pool and for the migration lock instead of giving up at once, within
// STARTUP_WAIT_MS, and says which it waited on when it does give up. Behind a real PgBouncer in
// transaction mode with a server pool of 5 (three replicas migrating one fresh database hold it), and
// with a pool of 1 or the migration lock held by the test for longer than the wait.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { listMigrations } from '../../prisma/migrate';
import { startupWaitTarget, waitThroughStartup } from '../../shared/platform/preflight';
import { testDatabaseUrl, uniqueSuffix } from '../helpers/context';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer';
import { until } from '../helpers/until';

const ROOT = path.join(__dirname, '../..');
const OWNER = decodeURIComponent(new URL(testDatabaseUrl).username) || 'postgres';
const suffix = uniqueSuffix().toLowerCase();
const testDb = new URL(testDatabaseUrl).pathname.slice(1);
const freshDb = `${testDb}_fresh_${suffix}`;
const heldDb = `${testDb}_held_${suffix}`;
const lockDb = `${testDb}_lock_${suffix}`;
const MIGRATION_LOCK_KEY = 72_240_311;

function directUrl(database: string): string {
  const u = new URL(testDatabaseUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

async function onServer(statements: string[]): Promise<void> {
  const client = new Client({ connectionString: directUrl('postgres') });
  await client.connect();
  try {
    for (const s of statements) await client.query(s);
  } finally {
    await client.end();
  }
}

interface Child {
  code?: number | null;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
  kill(): void;
}

function runApi(env: Record<string, string>): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      LOG_LEVEL: 'info',
      PORT: '0',
      HOST: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Child = {
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) =>
      child.once('exit', (code) => {
        out.code = code;
        resolve(code);
      }),
    ),
    kill: () => child.kill('SIGTERM'),
  };
  child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
  return out;
}

const listeningOrExited = (c: Child) =>
  until(
    'the process to listen or exit',
    () => {
      if (c.code !== undefined) return `exited ${c.code}: ${c.stderr}`;
      return c.stdout.includes('"api listening"') ? 'listening' : undefined;
    },
    150_000,
  );

describe('waitThroughStartup', () => {
  const clock = () => {
    let now = 0;
    return { now: () => now, sleep: (ms: number) => Promise.resolve(void (now += ms)) };
  };
  const busy = () => Object.assign(new Error('sorry, too many clients already'), { code: '53300' });

  it('tries a busy step again until it succeeds, with a growing pause', async () => {
    const c = clock();
    const pauses: number[] = [];
    let tries = 0;
    const sleep = c.sleep;
    c.sleep = (ms) => (pauses.push(ms), sleep(ms));
    const result = await waitThroughStartup(
      60_000,
      () => (++tries < 6 ? Promise.reject(busy()) : Promise.resolve('up')),
      c,
    );
    expect({ result, tries, pauses }).toEqual({ result: 'up', tries: 6, pauses: [250, 500, 1000, 2000, 4000] });
  });

  it('gives up when the budget is spent, naming what it waited on', async () => {
    const lock = Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });
    await expect(waitThroughStartup(10_000, () => Promise.reject(busy()), clock())).rejects.toThrow(
      /gave up after waiting 10 s \(STARTUP_WAIT_MS\) for a database connection .*last: sorry, too many clients/,
    );
    await expect(waitThroughStartup(10_000, () => Promise.reject(lock), clock())).rejects.toThrow(
      /for the migration lock/,
    );
  });

  it('throws any other failure at once', async () => {
    let tries = 0;
    const wrongPassword = Object.assign(new Error('password authentication failed'), { code: '28P01' });
    await expect(waitThroughStartup(60_000, () => (tries++, Promise.reject(wrongPassword)), clock())).rejects.toBe(
      wrongPassword,
    );
    expect(tries).toBe(1);
    expect(startupWaitTarget(new Error('x', { cause: new Error('timeout expired') }))).toBe('pool');
    // Nothing listening is said at once (how to start PostgreSQL), not waited for.
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(startupWaitTarget(new Error('PostgreSQL is not reachable', { cause: refused }))).toBeUndefined();
    expect(startupWaitTarget(new AggregateError([refused], 'x'))).toBeUndefined();
  });
});

describe('starting through a PgBouncer pool of 5', () => {
  let bouncer: PgBouncer;
  beforeAll(async () => {
    await onServer([`CREATE DATABASE "${freshDb}"`, `CREATE DATABASE "${heldDb}"`, `CREATE DATABASE "${lockDb}"`]);
    bouncer = await startPgBouncer({ roles: [OWNER], databases: [freshDb, heldDb, lockDb], poolSize: 5 });
  }, 60_000);
  afterAll(async () => {
    await bouncer?.stop();
    await onServer([freshDb, heldDb, lockDb].map((d) => `DROP DATABASE IF EXISTS "${d}" WITH (FORCE)`));
  }, 60_000);

  it('three API processes starting together on a fresh database all come up; each migration is applied once', async () => {
    const replicas = [1, 2, 3].map((n) =>
      runApi({ DATABASE_URL: bouncer.url(freshDb), QUEUE_PREFIX: `{startup-${suffix}-${n}}`, DB_POOL_SIZE: '4' }),
    );
    try {
      expect(await Promise.all(replicas.map(listeningOrExited))).toEqual(['listening', 'listening', 'listening']);
    } finally {
      for (const r of replicas) r.kill();
      await Promise.all(replicas.map((r) => r.exited));
    }
    const client = new Client({ connectionString: directUrl(freshDb) });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM _prisma_migrations');
      expect(rows[0]!.n).toBe((await listMigrations()).length);
    } finally {
      await client.end();
    }
  }, 200_000);

  it('gives up after STARTUP_WAIT_MS when the migration lock stays held, and says so', async () => {
    const holder = new Client({ connectionString: directUrl(lockDb) });
    await holder.connect();
    try {
      await holder.query(`BEGIN; SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
      const api = runApi({ DATABASE_URL: bouncer.url(lockDb), STARTUP_WAIT_MS: '3000' });
      expect(await api.exited).toBe(1);
      expect(api.stderr).toMatch(/gave up after waiting 3 s \(STARTUP_WAIT_MS\) for the migration lock/);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  }, 60_000);

  it('gives up after STARTUP_WAIT_MS when the pool stays full, and says it waited on a connection', async () => {
    // Five transactions through the pooler hold its five server connections.
    const holders = await Promise.all(
      [1, 2, 3, 4, 5].map(async () => {
        const c = new Client({ connectionString: bouncer.url(heldDb) });
        c.on('error', () => undefined);
        await c.connect();
        await c.query('BEGIN; SELECT 1');
        return c;
      }),
    );
    try {
      const api = runApi({ DATABASE_URL: bouncer.url(heldDb), STARTUP_WAIT_MS: '4000' });
      expect(await api.exited).toBe(1);
      expect(api.stderr).toMatch(/gave up after waiting 4 s \(STARTUP_WAIT_MS\) for a database connection/);
    } finally {
      await Promise.all(holders.map((c) => c.query('ROLLBACK').then(() => c.end())));
    }
  }, 60_000);
});
