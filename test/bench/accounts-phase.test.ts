// The bench's `accounts` phase at toy size (12 accounts, 2 clients): every account scheduled through
// POST /v2/data-import/accounts/ reaches PROCESSED, and each figure the phase prints is there. Runs
// `bench/run.ts --only accounts` as `npm run bench` would, against a database of its own that it drops.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { benchMpan, benchMprn } from '../../bench/account-payloads';
import { isValidMpanCore, isValidMprn } from '../../shared/account-import/identifiers';
import { uniqueSuffix } from '../helpers/context';

const ROOT = path.join(__dirname, '..', '..');
const PG_BASE = process.env.TEST_PG_BASE_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const database = `data_import_bench_accounts_${uniqueSuffix().toLowerCase()}`;

function runBench(out: string, log: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const args = ['--import', 'tsx', 'bench/run.ts', '--only', 'accounts', '--account-count', '12', '--clients', '2'];
  args.push('--account-depth', '2', '--accounts', '2', '--list-accounts', '10', '--runtime', 'tsx');
  args.push('--database', `${PG_BASE}/${database}`, '--out', out, '--log', log);
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('the bench accounts phase', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-accounts-'));

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    const admin = new Client({ connectionString: `${PG_BASE}/postgres` });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.end();
  });

  it('gives every account valid, distinct meter point identifiers', () => {
    const indexes = [1, 2, 9, 10, 99_999, 100_000];
    const mpans = indexes.map(benchMpan);
    const mprns = indexes.map(benchMprn);
    expect([...mpans, ...mprns].filter((id, i) => !(i < 6 ? isValidMpanCore(id) : isValidMprn(id)))).toEqual([]);
    expect(new Set(mpans).size + new Set(mprns).size).toBe(12);
  });

  it('schedules each account, waits for PROCESSED and prints the figures', async () => {
    const out = path.join(dir, 'results.json');
    const log = path.join(dir, 'service.log');
    const run = await runBench(out, log);
    const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-3000) : '';
    expect({ code: run.code, output: run.code === 0 ? '' : `${run.stderr}\n--- service log ---\n${tail}` }).toEqual({
      code: 0,
      output: '',
    });
    const a = JSON.parse(readFileSync(out, 'utf8')).accounts;
    expect({ processed: a.processed, errors: a.errors, firstError: a.firstError }).toEqual({
      processed: 12,
      errors: 0,
      firstError: undefined,
    });
    expect(a).toMatchObject({ accounts: 12, clients: 2, depth: 2 });
    expect(a.perSecond).toBeGreaterThan(0);
    expect(a.p99Ms).toBeGreaterThanOrEqual(a.p50Ms);
    expect(a.statusRequests).toBeGreaterThanOrEqual(12);
    for (const role of ['api', 'worker', 'postgres'] as const) expect(a.cpuMsPerAccount[role]).toBeGreaterThan(0);
    // pg_stat_database reaches a busy backend's counts up to 10 s late (PostgreSQL flushes them when it goes
    // idle), so a 12-account run may see few of its inserts: the figure is present, its size is the long run's.
    expect(a.database.rowsInsertedPerAccount).toBeGreaterThanOrEqual(0);
    expect(a.groupCommit.jobsPerTransaction).toBeGreaterThanOrEqual(1);
    for (const t of [a.rss.api, a.rss.worker]) expect(t.peakMb).toBeGreaterThanOrEqual(t.endMb);
    for (const label of ['accounts: 12 scheduled and PROCESSED', 'schedule → PROCESSED', 'CPU per account'])
      expect(run.stdout).toContain(label);
  }, 300_000);
});
