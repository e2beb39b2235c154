// A real PgBouncer in transaction mode on a loopback port, started by a test with its own
// configuration and user list in a temporary folder, in front of the test PostgreSQL server.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { until } from './until';

const PG_BASE = new URL(process.env.TEST_PG_BASE_URL ?? 'postgresql://postgres@127.0.0.1:5432');
// PgBouncer refuses to run as root; run as root (as CI does here), it switches to this user (-u).
const RUN_AS = process.env.TEST_PGBOUNCER_USER ?? 'postgres';

export interface PgBouncer {
  port: number;
  /** A connection URL to `database` as `role` through the pooler. */
  url(database: string, role?: string): string;
  /** PgBouncer's own log so far (stderr), for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

/** The pgbouncer binary; a missing one fails the test with the command that installs it. */
function pgbouncerBinary(): string {
  for (const candidate of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer']) {
    if (spawnSync(candidate, ['--version']).status === 0) return candidate;
  }
  if (spawnSync('pgbouncer', ['--version']).status === 0) return 'pgbouncer';
  throw new Error(
    'pgbouncer is not installed: `apt-get install -y pgbouncer` (`npm test` installs it when missing: scripts/ensure-test-tools.js)',
  );
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts PgBouncer (pool_mode = transaction) in front of the test server. `databases` lists the only
 * databases it serves (none else, not even `postgres`); without it every database is served.
 * `roles` are the user names it lets in (trust: the server checks them again).
 */
export async function startPgBouncer(opts: {
  roles: string[];
  databases?: string[];
  poolSize?: number;
  /** The port of a PgBouncer stopped before: starting on it again is a restart, as clients see it. */
  port?: number;
}): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  const dir = await mkdtemp(path.join(tmpdir(), 'pgbouncer-'));
  // Readable by the user PgBouncer switches to.
  await chmod(dir, 0o755);
  const port = opts.port ?? (await freePort());
  const server = `host=${PG_BASE.hostname} port=${PG_BASE.port || '5432'}`;
  const databases = opts.databases?.map((d) => `${d} = ${server} dbname=${d}`) ?? [`* = ${server}`];
  const ini = [
    '[databases]',
    ...databases,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'userlist.txt')}`,
    'pool_mode = transaction',
    'max_client_conn = 500',
    `default_pool_size = ${opts.poolSize ?? 20}`,
    // pg sends none of these by default; listed so a client that does is not refused.
    'ignore_startup_parameters = extra_float_digits,options',
    `admin_users = ${opts.roles[0]}`,
  ].join('\n');
  await writeFile(path.join(dir, 'pgbouncer.ini'), `${ini}\n`, { mode: 0o644 });
  await writeFile(path.join(dir, 'userlist.txt'), opts.roles.map((r) => `"${r}" ""\n`).join(''), { mode: 0o644 });

  const args = process.getuid?.() === 0 ? ['-u', RUN_AS] : [];
  const child: ChildProcess = spawn(binary, [...args, path.join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const url = (database: string, role = opts.roles[0]!) =>
    `postgresql://${encodeURIComponent(role)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const outcome = await until(
      'pgbouncer to listen',
      async () => {
        if (child.exitCode !== null) return 'exited';
        // Its admin console answers without any server connection.
        const admin = new Client({ connectionString: url('pgbouncer'), connectionTimeoutMillis: 1000 });
        admin.on('error', () => undefined);
        try {
          await admin.connect();
          return 'listening';
        } finally {
          await admin.end().catch(() => undefined);
        }
      },
      15_000,
      50,
    );
    if (outcome === 'exited') throw new Error(`pgbouncer exited with ${child.exitCode}`);
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n--- pgbouncer output ---\n${log}`, { cause: err });
  }
  return { port, url, log: () => log, stop };
}
