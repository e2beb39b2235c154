// The service behind a real PgBouncer in transaction mode (Debian's 1.18, which cannot carry named
// prepared statements): replicas migrating one fresh database at once, the API and the workers
// answering concurrent reads and writes, a runtime role that may only read and write rows, and
// start-up errors that name the actual problem. PgBouncer is started by the test on a loopback port.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { listMigrations, migrate } from '../../prisma/migrate';
import { applyFile } from '../../shared/admin/apply.use-case';
import { createDatabase } from '../../shared/platform/db';
import { checkPostgres } from '../../shared/platform/preflight';
import { CONTRACT_PRODUCT, createTenant, obtainToken, request, startTestApp, type TestApp } from '../helpers/app';
import { testDatabaseUrl, uniqueSuffix } from '../helpers/context';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer';
import { until } from '../helpers/until';
import { importedAccount, payment, postTransactions } from '../transactions/transactions.fixture';

const ROOT = path.join(__dirname, '../..');
const OWNER = decodeURIComponent(new URL(testDatabaseUrl).username) || 'postgres';
const suffix = uniqueSuffix().toLowerCase();
const testDb = new URL(testDatabaseUrl).pathname.slice(1);
const raceDb = `${testDb}_race_${suffix}`;
const migrateDb = `${testDb}_migrate_${suffix}`;
const roleDb = `${testDb}_roles_${suffix}`;
const emptyDb = `${testDb}_empty_${suffix}`;
// Listed by the pooler but never created on the server.
const absentDb = `${testDb}_absent_${suffix}`;
const RUNTIME = `dit_runtime_${suffix}`;

/** The grants of the runtime role, as docs/deployment.md "Roles" gives them. */
const runtimeGrants = (database: string, role: string, owner: string) => [
  `GRANT CONNECT ON DATABASE "${database}" TO "${role}"`,
  `GRANT USAGE ON SCHEMA public TO "${role}"`,
  `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "${role}"`,
  `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO "${role}"`,
  `ALTER DEFAULT PRIVILEGES FOR ROLE "${owner}" IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO "${role}"`,
  `ALTER DEFAULT PRIVILEGES FOR ROLE "${owner}" IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO "${role}"`,
];

function directUrl(database: string, role = OWNER): string {
  const u = new URL(testDatabaseUrl);
  u.username = role;
  u.pathname = `/${database}`;
  return u.toString();
}

async function onDatabase<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

interface Child {
  /** Set once the process exited. */
  code?: number | null;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
  lines: string[];
  kill(signal: NodeJS.Signals): void;
}

/** A TypeScript entry point as its own process, with only the environment given. */
function run(entry: string, env: Record<string, string>): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Child = {
    stdout: '',
    stderr: '',
    lines: [],
    exited: new Promise((resolve) =>
      child.once('exit', (code) => {
        out.code = code;
        resolve(code);
      }),
    ),
    kill: (signal) => child.kill(signal),
  };
  child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => out.lines.push(line));
  return out;
}

/** The first JSON log line of `child` whose message is `msg`. */
function logLine(child: Child, msg: string): Record<string, unknown> | undefined {
  for (const line of child.lines) {
    if (!line.startsWith('{')) continue;
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (parsed.msg === msg) return parsed;
  }
  return undefined;
}

let bouncer: PgBouncer;

beforeAll(async () => {
  await onDatabase(directUrl('postgres'), async (c) => {
    for (const db of [raceDb, migrateDb, roleDb, emptyDb]) await c.query(`CREATE DATABASE "${db}"`);
    await c.query(`CREATE ROLE "${RUNTIME}" LOGIN`);
  });
  // Only these databases: not `postgres`, so nothing may depend on reaching it.
  bouncer = await startPgBouncer({
    roles: [OWNER, RUNTIME],
    databases: [testDb, raceDb, migrateDb, roleDb, emptyDb, absentDb],
  });
}, 60_000);

afterAll(async () => {
  await bouncer?.stop();
  await onDatabase(directUrl('postgres'), async (c) => {
    for (const db of [raceDb, migrateDb, roleDb, emptyDb])
      await c.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
    await c.query(`DROP ROLE IF EXISTS "${RUNTIME}"`);
  });
}, 60_000);

describe('migrating through PgBouncer in transaction mode', () => {
  it('lets three API processes start on one fresh database at once: all serve and each migration is applied once', async () => {
    const names = (await listMigrations()).map((m) => m.name);
    // The default MIGRATE_ON_START: each replica migrates before it listens.
    const replicas = [1, 2, 3].map((n) =>
      run('api/main.ts', {
        DATABASE_URL: bouncer.url(raceDb),
        QUEUE_PREFIX: `{race-${suffix}-${n}}`,
        PORT: '0',
        HOST: '127.0.0.1',
      }),
    );
    try {
      const outcomes = await Promise.all(
        replicas.map((r) =>
          until(
            'the replica to listen or exit',
            () => (r.code !== undefined ? `exited ${r.code}: ${r.stderr}` : logLine(r, 'api listening') && 'listening'),
            90_000,
          ),
        ),
      );
      expect(outcomes).toEqual(['listening', 'listening', 'listening']);
    } finally {
      for (const r of replicas) r.kill('SIGTERM');
      await Promise.all(replicas.map((r) => r.exited));
    }
    const { rows } = await onDatabase(directUrl(raceDb), (c) =>
      c.query<{ migration_name: string; n: number }>(
        'SELECT migration_name, count(*)::int AS n FROM _prisma_migrations GROUP BY 1 ORDER BY 1',
      ),
    );
    expect(rows).toEqual(names.map((name) => ({ migration_name: name, n: 1 })));
  }, 120_000);

  it('lets three `npm run migrate` processes race on one fresh database: each migration is applied by exactly one', async () => {
    const names = (await listMigrations()).map((m) => m.name);
    const runners = [1, 2, 3].map(() => run('prisma/migrate.ts', { DATABASE_URL: bouncer.url(migrateDb) }));
    const codes = await Promise.all(runners.map((r) => r.exited));

    expect({ codes, stderr: runners.map((r) => r.stderr) }).toEqual({ codes: [0, 0, 0], stderr: ['', '', ''] });
    const reports = runners.map((r) => JSON.parse(r.stdout) as { applied: string[]; alreadyApplied: number });
    // Between them the three applied every migration exactly once; each saw all of them done.
    expect(reports.flatMap((r) => r.applied).sort()).toEqual(names);
    expect(reports.map((r) => r.applied.length + r.alreadyApplied)).toEqual([names.length, names.length, names.length]);
    const { rows } = await onDatabase(directUrl(migrateDb), (c) =>
      c.query<{ migration_name: string; n: number }>(
        'SELECT migration_name, count(*)::int AS n FROM _prisma_migrations GROUP BY 1 ORDER BY 1',
      ),
    );
    expect(rows).toEqual(names.map((name) => ({ migration_name: name, n: 1 })));
  }, 120_000);
});

describe('the API and the workers through PgBouncer in transaction mode', () => {
  let app: TestApp;
  afterEach(() => app?.close());

  it('answers concurrent reads and writes without a server error, before and after a restart', async () => {
    // Room for five streamed lists of one organisation at once (its share is a quarter of the slots).
    const overrides = {
      DATABASE_URL: bouncer.url(testDb),
      WORKER_CONCURRENCY: '4',
      DB_POOL_SIZE: '25',
      LIST_STREAMS_PER_PROCESS: '21',
      DB_PREPARED_STATEMENTS: process.env.TEST_POOLER_PREPARED_STATEMENTS ?? 'unnamed',
    };
    app = await startTestApp(overrides, { workers: true });
    const tenant = await createTenant(app);
    const accounts = await Promise.all([1, 2, 3, 4].map(() => importedAccount(app, tenant)));
    const status = (number: string) =>
      request(app.baseUrl, 'GET', `/v1/data-import/account-transfer-status/${tenant.supplier}/${number}/`, {
        token: tenant.token,
      });
    const list = () =>
      request(app.baseUrl, 'GET', `/v1/data-import/all-account-import-processes/${tenant.supplier}/`, {
        token: tenant.token,
      });
    const write = (i: number) =>
      postTransactions(app, tenant.token, {
        import_supplier: tenant.supplier,
        external_account_number: accounts[i % accounts.length]!.external,
        transactions: [payment(`pooled-${i}`)],
      });
    const note = (i: number) =>
      request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', {
        token: tenant.token,
        body: {
          import_supplier: tenant.supplier,
          external_account_number: accounts[i % accounts.length]!.external,
          notes: [{ body: `pooled note ${i}` }],
        },
      });

    const answers = await Promise.all([
      ...Array.from({ length: 15 }, (_, i) => status(accounts[i % accounts.length]!.external)),
      ...Array.from({ length: 5 }, () => list()),
      ...Array.from({ length: 8 }, (_, i) => write(i)),
      ...Array.from({ length: 8 }, (_, i) => note(i)),
    ]);
    const statuses = answers.map((a) => a.status);
    expect(statuses).toEqual([
      ...Array<number>(15).fill(200),
      ...Array<number>(5).fill(200),
      ...Array<number>(8).fill(201),
      ...Array<number>(8).fill(201),
    ]);
    const stored = await app.db.prisma.transaction.count({
      where: { accountId: { in: accounts.map((a) => a.accountId) } },
    });
    expect(stored).toBe(8);

    // A restarted API meets server connections that earlier processes used.
    await app.close();
    app = await startTestApp(overrides, { workers: true });
    expect((await status(accounts[0]!.external)).status).toBe(200);
    expect((await write(100)).status).toBe(201);
  }, 120_000);
});

describe('a runtime role that may only read and write rows', () => {
  it('serves API and worker with MIGRATE_ON_START=false after `npm run migrate` ran as the owner', async () => {
    const migrator = run('prisma/migrate.ts', { DATABASE_URL: bouncer.url(roleDb) });
    expect(await migrator.exited).toBe(0);
    await onDatabase(directUrl(roleDb), async (c) => {
      for (const grant of runtimeGrants(roleDb, RUNTIME, OWNER)) await c.query(grant);
    });

    const env = {
      DATABASE_URL: bouncer.url(roleDb, RUNTIME),
      MIGRATE_ON_START: 'false',
      QUEUE_PREFIX: `{roles-${suffix}}`,
      PORT: '0',
      HOST: '127.0.0.1',
      DB_POOL_SIZE: '3',
      WORKER_CONCURRENCY: '2',
    };
    const api = run('api/main.ts', env);
    const worker = run('worker/main.ts', env);
    try {
      const started = async (child: Child, msg: string) => {
        const line = await until(msg, () => (child.code !== undefined ? 'exited' : logLine(child, msg)), 60_000);
        if (line === 'exited') throw new Error(`exited with ${child.code} before "${msg}":\n${child.stderr}`);
        return line;
      };
      const listening = await started(api, 'api listening');
      await started(worker, 'workers running');
      const baseUrl = `http://127.0.0.1:${listening.port as number}`;

      // The tenant is set up by the owner (the admin tool), then served as the runtime role.
      const owner = createDatabase({ DATABASE_URL: directUrl(roleDb), DB_POOL_SIZE: 2 });
      const apiKey = `roles-key-${suffix}-${'x'.repeat(32)}`;
      const supplier = `ROLES_${suffix.toUpperCase()}`;
      try {
        await applyFile(owner, {
          suppliers: [{ code: supplier, status: 'Ongoing', document_root: `imports/${suffix}` }],
          organisations: [{ name: `roles-${suffix}`, api_key: apiKey, suppliers: [supplier] }],
          products: [CONTRACT_PRODUCT],
          accounts: [
            {
              import_supplier: supplier,
              external_account_number: 'ROLE-1',
              state: 'imported',
              open_statement_from: '2019-10-01',
            },
          ],
        });
      } finally {
        await owner.close();
      }
      const signIn = await obtainToken(baseUrl, { APIKey: apiKey });
      const token = signIn.body?.data?.obtainToken?.token as string;
      expect(typeof token).toBe('string');

      const written = await request(baseUrl, 'POST', '/v1/data-import/transactions/create/', {
        token,
        body: { import_supplier: supplier, external_account_number: 'ROLE-1', transactions: [payment('role-1')] },
      });
      const noted = await request(baseUrl, 'POST', '/v1/data-import/notes/create/', {
        token,
        body: {
          import_supplier: supplier,
          external_account_number: 'ROLE-1',
          notes: [{ body: 'as the runtime role' }],
        },
      });
      const read = await request(baseUrl, 'GET', `/v1/data-import/account-transfer-status/${supplier}/ROLE-1/`, {
        token,
      });
      expect([written.status, noted.status, read.status]).toEqual([201, 201, 200]);
    } finally {
      api.kill('SIGTERM');
      worker.kill('SIGTERM');
      await Promise.all([api.exited, worker.exited]);
    }
  }, 180_000);

  it('refuses to start with MIGRATE_ON_START=false on a database that is not at this build’s migration', async () => {
    await onDatabase(directUrl(emptyDb), async (c) => {
      for (const grant of runtimeGrants(emptyDb, RUNTIME, OWNER).slice(0, 2)) await c.query(grant);
    });
    const api = run('api/main.ts', {
      DATABASE_URL: bouncer.url(emptyDb, RUNTIME),
      MIGRATE_ON_START: 'false',
      PORT: '0',
      HOST: '127.0.0.1',
    });
    expect(await api.exited).toBe(1);
    expect(api.stderr).toMatch(
      /the database has never been migrated; this build expects \d+_\w+ \(\d+ pending, MIGRATE_ON_START=false\): run `npm run migrate`/,
    );
  }, 60_000);

  it('says the role may not change the schema when it is asked to migrate', async () => {
    await expect(migrate(bouncer.url(emptyDb, RUNTIME))).rejects.toThrow(
      /role "dit_runtime_\w+" may not change the schema \(permission denied for schema public\): run `npm run migrate` as the role that owns the database/,
    );
  });
});

describe('start-up errors say what is wrong', () => {
  it('names a database the pooler does not serve, without reaching for the `postgres` database', async () => {
    await expect(checkPostgres(bouncer.url('not_served'))).rejects.toThrow(
      /the connection pooler at postgresql:\/\/.+\/not_served refused the connection \(.+\): check that it lists database "not_served"/,
    );
  });

  it('names a missing database, a missing role and a refused CONNECT', async () => {
    await expect(checkPostgres(directUrl(`${testDb}_missing_${suffix}`))).rejects.toThrow(
      /database "\w+_missing_\w+" does not exist at .+: create it/,
    );
    await expect(checkPostgres(directUrl(testDb, `nobody_${suffix}`))).rejects.toThrow(
      /PostgreSQL refused role "nobody_\w+" on database "\w+" .+: create the role, or allow it in pg_hba.conf/,
    );
    await onDatabase(directUrl(emptyDb), (c) =>
      c.query(`REVOKE CONNECT ON DATABASE "${emptyDb}" FROM PUBLIC, "${RUNTIME}"`),
    );
    await expect(checkPostgres(directUrl(emptyDb, RUNTIME))).rejects.toThrow(
      /role "dit_runtime_\w+" may not use database "\w+" .+: GRANT CONNECT ON DATABASE/,
    );
  });

  it('says "not reachable" and how to start PostgreSQL only when nothing answers', async () => {
    await expect(checkPostgres('postgresql://postgres@127.0.0.1:1/x')).rejects.toThrow(
      /PostgreSQL is not reachable at .+ECONNREFUSED.+: start it with/,
    );
  });

  it('says how to create a missing database when the pooler serves no `postgres` database to create it through', async () => {
    await expect(migrate(bouncer.url(absentDb))).rejects.toThrow(
      /database "\w+_absent_\w+" does not exist, and creating it through the server's "postgres" database failed \(.*postgres.*\): create it as its owner/,
    );
  });

  it('accepts a missing database when start-up migration will create it', async () => {
    await expect(
      checkPostgres(directUrl(`${testDb}_missing_${suffix}`), { mayBeMissing: true }),
    ).resolves.toBeUndefined();
  });
});
