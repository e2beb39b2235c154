// The benchmark harness at toy sizes (10 accounts, one client, one second per phase, a 1,000-account
// list, the scale-out phase with its worker SIGKILL), so `npm test` notices when it rots. Runs `bench/run.ts` as `npm run bench` does, against a
// database of its own that it drops afterwards.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { uniqueSuffix } from '../helpers/context';

const ROOT = path.join(__dirname, '..', '..');
const PG_BASE = process.env.TEST_PG_BASE_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const database = `data_import_bench_smoke_${uniqueSuffix().toLowerCase()}`;

function runBench(
  out: string,
  log: string,
  profiles: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const args = ['--import', 'tsx', 'bench/run.ts', '--accounts', '10', '--list-accounts', '1000', '--clients', '1'];
  args.push('--real-clients', '2', '--real-batch', '3', '--account-count', '10');
  args.push(
    '--seconds',
    '1',
    '--warmup',
    '0.3',
    '--runtime',
    'tsx',
    '--database',
    `${PG_BASE}/${database}`,
    '--out',
    out,
    '--log',
    log,
    '--cpu-prof',
    profiles,
  );
  return runNode(args);
}

function runNode(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const tail = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').slice(-3000) : '');

describe('npm run bench at toy sizes', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-smoke-'));

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    const admin = new Client({ connectionString: `${PG_BASE}/postgres` });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.end();
  });

  it('measures every figure, prints them in one table and writes them as JSON', async () => {
    const out = path.join(dir, 'results.json');
    const log = path.join(dir, 'service.log');
    const profiles = path.join(dir, 'profiles');
    const run = await runBench(out, log, profiles);

    // On failure this shows why: the bench's own errors, then the end of the service's log.
    expect({
      code: run.code,
      output: run.code === 0 ? '' : `${run.stderr}\n--- service log ---\n${tail(log)}`,
    }).toEqual({ code: 0, output: '' });
    const r = JSON.parse(readFileSync(out, 'utf8'));
    const rate = expect.any(Number);
    expect(r.ceiling.rowsPerSecond).toBeGreaterThan(0);
    expect(r.ceiling.runs).toHaveLength(2);
    for (const phase of ['transactions', 'notes', 'status'] as const) {
      expect({ phase, errors: r[phase].errors, firstError: r[phase].firstError }).toEqual({
        phase,
        errors: 0,
        firstError: undefined,
      });
      expect(r[phase].requests).toBeGreaterThan(0);
      expect(r[phase].perSecond).toBeGreaterThan(0);
      expect(r[phase].p50Ms).toBeGreaterThan(0);
      expect(r[phase].p99Ms).toBeGreaterThanOrEqual(r[phase].p50Ms);
      expect(r[phase].cpu).toEqual({
        ...{ service: rate, api: rate, worker: rate, postgres: rate, redis: rate, load: rate },
        system: { api: rate, worker: rate },
      });
      expect(r[phase].window.toUs).toBeGreaterThan(r[phase].window.fromUs);
      // The children's split is part of the service's whole (the supervisor takes the rest); 0.02 of
      // slack for the rounding of three figures to two places.
      expect(r[phase].cpu.api + r[phase].cpu.worker).toBeLessThanOrEqual(r[phase].cpu.service + 0.02);
    }
    // The API does the work of a write phase too, not only the worker.
    expect(r.transactions.cpu.api).toBeGreaterThan(0);
    expect(r.transactions.cpu.worker).toBeGreaterThan(0);
    // The batch keeps its full size: every request of the write phases carries 100 items.
    expect(r.transactions.items).toBe(r.transactions.requests * 100);
    expect(r.notes.items).toBe(r.notes.requests * 100);
    expect(r.host.autovacuum).toMatch(/^(on|off)$/);
    expect(r.real).toMatchObject({ clients: 2, batch: 3 });
    for (const kind of ['transactions', 'notes', 'statements'] as const) {
      const t = r.real[kind];
      expect({ kind, errors: t.errors, firstError: t.firstError }).toEqual({ kind, errors: 0, firstError: undefined });
      expect(t.requests).toBeGreaterThan(0);
      expect(t.items).toBe(t.requests * (kind === 'transactions' ? 3 : 1));
      expect(t.cpu.api).toBeGreaterThan(0);
    }
    expect(r.transactions.ratioToCeiling).toBeCloseTo(r.transactions.perSecond / r.ceiling.rowsPerSecond, 6);
    // The accounts phase at its smallest (its own test, accounts-phase.test.ts, checks its figures).
    expect(r.accounts).toMatchObject({ accounts: 10, processed: 10, errors: 0 });
    expect(r.list).toMatchObject({ status: 200, accounts: 1000, rows: 1000 });
    expect(r.list.seconds).toBeGreaterThan(0);
    expect(r.list.rssGrowthMb).toBeGreaterThanOrEqual(0);
    for (const rss of [r.idle.supervisorRssMb, r.idle.apiRssMb, r.idle.workerRssMb, r.idle.apiRssServedMb]) {
      expect(rss).toBeGreaterThan(30);
      expect(rss).toBeLessThan(2000);
    }
    // 2 API + 2 worker processes: the same window without errors, then one worker SIGKILLed while
    // retrying clients go on, with nothing lost or doubled and the worker replaced.
    expect({ errors: r.scaleOut.transactions.errors, firstError: r.scaleOut.transactions.firstError }).toEqual({
      errors: 0,
      firstError: undefined,
    });
    expect(r.scaleOut.transactions.requests).toBeGreaterThan(0);
    expect({ errors: r.scaleOut.status.errors, moving: r.scaleOut.status.perSecond > 0 }).toEqual({
      errors: 0,
      moving: true,
    });
    expect(r.scaleOut).toMatchObject({ apiProcesses: 2, workerProcesses: 2 });
    const k = r.scaleOut.kill;
    expect({ restarted: k.restarted, unfinished: k.unfinished, errors: k.errors, duplicates: k.duplicates }).toEqual({
      restarted: true,
      unfinished: 0,
      errors: 0,
      duplicates: 0,
    });
    expect(k.acknowledgedItems).toBeGreaterThan(0);
    expect(k.storedRows).toBe(k.acknowledgedItems);
    expect(r.levers.map((l: { lever: string; errors: number }) => [l.lever, l.errors])).toEqual([
      ['every lever on', 0],
      ['token cache off', 0],
      ['rate limit asks Redis per request', 0],
      ['request log line off', 0],
    ]);
    for (const l of r.levers) expect(l.nodeMsPerRequest).toBeGreaterThan(0);
    const labels = [
      'levers: status',
      'ceiling:',
      'transactions:',
      'transactions / ceiling',
      'real shape: transactions, 2 clients × 3',
      'real shape: notes, 2 clients × 1',
      'real shape: statements, 2 clients × 1',
      'accounts: 10 scheduled and PROCESSED',
      'API CPU per request',
      'autovacuum',
      'notes:',
      'status:',
      'list:',
      'API RSS growth',
      'idle RSS per process',
      'scale-out:',
      'SIGKILLed mid-run',
    ];
    for (const label of labels) expect(run.stdout).toContain(label);
    expect(r.real.pgbench.one.pgCpuMs).toBeGreaterThan(0);

    // Where each phase's milliseconds go: the profiles cut to each phase's window, and PostgreSQL's
    // planning and execution of the one-item writes on the bench's database.
    const breakdown = await runNode(['--import', 'tsx', 'bench/cost-breakdown.ts', profiles, out]);
    expect({ code: breakdown.code, stderr: breakdown.stderr }).toEqual({ code: 0, stderr: '' });
    for (const title of ['transactions, 2 clients × 3 — API', 'notes, 2 clients × 1 — API', 'accounts scheduled'])
      expect(breakdown.stdout).toContain(title);
    expect(breakdown.stdout).toMatch(/\d\.\d{3} ms +in the kernel/);
    expect(breakdown.stdout).toMatch(/\d\.\d{3} ms +[\d.]+ % +HTTP, routing, answer/);
    const costs = await runNode(['--import', 'tsx', 'bench/statement-costs.ts', '10', out], {
      ...process.env,
      BENCH_DATABASE_URL: `${PG_BASE}/${database}`,
    });
    expect({ code: costs.code, stderr: costs.stderr }).toEqual({ code: 0, stderr: '' });
    expect(costs.stdout).toMatch(/^notes +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +-?[\d.]+$/m);
    expect(costs.stdout).toMatch(/^statements +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +-?[\d.]+$/m);
  }, 480_000);

  it('draws the curves at toy sizes and drops its database afterwards', async () => {
    const curvesDb = `${database}_curves`;
    const out = path.join(dir, 'curves.json');
    const args = [
      '--import',
      'tsx',
      'bench/curves.ts',
      '--tx-rows',
      '0,2000',
      '--status-accounts',
      '500,1000',
      '--waiters',
      '0,10',
    ];
    args.push(
      '--accounts',
      '10',
      '--clients',
      '1',
      '--seconds',
      '1',
      '--warmup',
      '0.3',
      '--wait-seconds',
      '2',
      '--real-clients',
      '2',
      '--real-batch',
      '3',
      '--runtime',
      'tsx',
    );
    args.push('--database', `${PG_BASE}/${curvesDb}`, '--out', out);
    const run = await runNode(args);

    expect({ code: run.code, output: run.code === 0 ? '' : run.stderr }).toEqual({ code: 0, output: '' });
    const r = JSON.parse(readFileSync(out, 'utf8'));
    expect(r.transactions.map((t: { tableRows: number }) => t.tableRows >= 0)).toEqual([true, true]);
    expect(r.transactions[1].tableRows).toBeGreaterThanOrEqual(2000);
    for (const t of [...r.transactions, ...r.realPoints])
      expect({ errors: t.errors, moving: t.perSecond > 0 }).toEqual({ errors: 0, moving: true });
    expect(r.realPoints.map((t: { tableRows: number }) => t.tableRows)).toEqual(
      r.transactions.map((t: { tableRows: number }) => t.tableRows),
    );
    expect(r.real).toEqual({ clients: 2, batch: 3 });
    expect(run.stdout).toContain('real shape, 2 clients × 3 (table not analysed)');
    expect(r.status.map((s: { accounts: number }) => s.accounts)).toEqual([500, 1000]);
    for (const s of r.status)
      expect({ errors: s.errors, moving: s.perSecond > 0 }).toEqual({ errors: 0, moving: true });
    expect(r.memory.map((m: { waiters: number }) => m.waiters)).toEqual([0, 10]);
    // No worker runs in the memory phase: every waiting client gets 503 result_pending.
    expect(r.memory[1].statuses).toEqual({ 503: 10 });
    expect(r.memory[1].peakMb).toBeGreaterThanOrEqual(r.memory[1].restMb);
    const admin = new Client({ connectionString: `${PG_BASE}/postgres` });
    await admin.connect();
    const left = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [curvesDb]);
    await admin.end();
    expect(left.rowCount).toBe(0);
  }, 240_000);
});
