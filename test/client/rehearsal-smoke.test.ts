// `npm run rehearsal` at toy size, so the script cannot rot: accounts through the client, files with
// invalid lines, payment instructions against the local fake vendor, a SIGKILL halfway through the
// transactions and a resume, failed.ndjson exactly the invalid lines, a zero-difference reconciliation,
// and a second run that adds nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';

const ROOT = path.join(__dirname, '../..');
const PG = process.env.TEST_PG_BASE_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const DATABASE = `${process.env.TEST_DB_PREFIX ?? 'data_import_test'}_rehearsal_${process.env.JEST_WORKER_ID ?? '0'}`;

const dir = mkdtempSync(path.join(tmpdir(), 'data-import-rehearsal-'));

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const admin = new Client({ connectionString: `${PG}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.end();
});

it('rehearses a small migration end to end and every check holds', async () => {
  const args = [
    '--accounts',
    '120',
    '--transactions',
    '3000',
    '--notes',
    '120',
    '--statements',
    '60',
    '--invalid-every',
    '50',
  ];
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/rehearsal.ts',
      ...args,
      '--runtime',
      'tsx',
      '--pg',
      PG,
      '--database',
      DATABASE,
      '--dir',
      dir,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));

  expect({ code, failed: stdout.match(/FAIL .*/g) ?? [], stderr: code === 0 ? '' : stderr }).toEqual({
    code: 0,
    failed: [],
    stderr: '',
  });
  expect(stdout.match(/^ {2}ok {3}/gm)).toHaveLength(10);
  expect(stdout).toContain('ok   payment instructions: failed.ndjson is exactly the vendor refusals');
  expect(stdout).toContain('"payment_instructions":118');
  expect(stdout).toContain('"accounts":120,"transactions":2940');
  for (const kind of ['accounts', 'notes', 'statements', 'transactions'])
    expect(stdout).toMatch(new RegExp(`rate: ${kind} \\(first send\\) +\\d+ lines/s`));
}, 300_000);
