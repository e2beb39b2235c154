// The database's own limit beside the small-request phases: PostgreSQL's `pgbench` on the bench
// database, the same clients, each transaction one INSERT of `rows` rows into a scratch table (no
// service, no queue, no HTTP). A phase's requests per second read as a share of this TPS.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from 'pg';
import { say, type CpuMeter } from './measure';
import type { PgbenchReference } from './results';

const run = promisify(execFile);
const TABLE = 'bench_pgbench_rows';
const PGBENCH = process.env.BENCH_PGBENCH ?? 'pgbench';

/**
 * Runs pgbench for `seconds` with `clients` clients, one `rows`-row INSERT per transaction; with a
 * meter, also PostgreSQL's CPU per transaction (what one such commit costs the database at the least).
 */
export async function pgbenchReference(
  pg: Client,
  databaseUrl: string,
  opts: { clients: number; rows: number; seconds: number },
  meter?: CpuMeter,
): Promise<PgbenchReference> {
  say(`pgbench reference: ${opts.clients} clients × one ${opts.rows}-row insert per transaction`);
  await pg.query(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (id bigserial PRIMARY KEY, account_id int NOT NULL,
       amount numeric(12, 2) NOT NULL, description text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
  );
  await pg.query(`TRUNCATE ${TABLE}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-pgbench-'));
  const script = path.join(dir, 'insert.sql');
  writeFileSync(
    script,
    '\\set account random(1, 1000)\n' +
      `INSERT INTO ${TABLE} (account_id, amount, description) ` +
      `SELECT :account, g * 1.25, 'pgbench reference row ' || g FROM generate_series(1, ${opts.rows}) g;\n`,
  );
  const threads = Math.min(opts.clients, 2);
  try {
    const started = performance.now();
    const stop = await meter?.start();
    const { stdout } = await run(
      PGBENCH,
      ['-n', '-c', String(opts.clients), '-j', String(threads), '-T', String(opts.seconds), '-f', script, databaseUrl],
      { timeout: (opts.seconds + 60) * 1000 },
    );
    const cores = (await stop?.())?.postgres;
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1];
    const done = Number(/number of transactions actually processed: (\d+)/.exec(stdout)?.[1] ?? 0);
    const wallMs = performance.now() - started;
    const pgCpuMs = cores !== undefined && done > 0 ? +((cores * wallMs) / done).toFixed(3) : undefined;
    return { ...opts, tps: tps === undefined ? null : Math.round(Number(tps)), pgCpuMs };
  } catch (err) {
    return { ...opts, tps: null, error: (err as Error).message.slice(0, 300) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await pg.query(`TRUNCATE ${TABLE}`);
  }
}
