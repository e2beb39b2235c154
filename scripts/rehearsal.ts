// `npm run rehearsal`: a whole migration on this machine. Creates the accounts with the admin CLI,
// generates transactions, notes and statements files with a known sprinkling of invalid lines, sends
// them with the data-import client against the service started as `npm start` starts it, SIGKILLs the
// client halfway through the transactions and resumes from the journal, then checks that failed.ndjson
// holds exactly the invalid lines, that the reconciliation shows no difference, and that a second run
// of the same files adds nothing. Prints the timings; sizes scale by flags (see OPTIONS).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { build, freePort, spawnService, untilReady } from '../bench/service';
import { dropDatabase, ensureDatabase } from '../prisma/migrate';
import { API_KEY, generateFiles, SUPPLIER, type RehearsalFiles } from './rehearsal/rehearsal-files';

const ROOT = path.join(__dirname, '..');
const say = (message: string) => process.stderr.write(`rehearsal: ${message}\n`);

const OPTIONS = {
  accounts: { type: 'string', default: '100000' },
  transactions: { type: 'string', default: '1000000' },
  notes: { type: 'string', default: '100000' },
  statements: { type: 'string', default: '50000' },
  'invalid-every': { type: 'string', default: '10000' },
  concurrency: { type: 'string', default: '16' },
  database: { type: 'string', default: 'data_import_rehearsal' },
  /** The PostgreSQL server (trust auth) where the database is dropped and created. */
  pg: { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432' },
  dir: { type: 'string' },
  runtime: { type: 'string', default: 'dist' },
} as const;

interface ClientResult {
  code: number | null;
  summary: Record<string, number | string>;
  seconds: number;
}

/**
 * Runs the client as a migration team does; with `killAt`, SIGKILLs it once its journal records that
 * many lines as final (read incrementally from the journal, as resume would read it).
 */
function runClient(
  args: string[],
  env: Record<string, string>,
  killAt?: { journal: string; lines: number },
): Promise<ClientResult> {
  const started = performance.now();
  // Progress is a send/resume option: reconcile prints none.
  const progress = args[0] === 'reconcile' ? [] : ['--progress-interval', '1'];
  const child = spawn(process.execPath, ['--import', 'tsx', 'client/main.ts', ...args, '--json', ...progress], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let summary: Record<string, number | string> = {};
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const event = JSON.parse(line) as { event: string };
      if (event.event === 'summary') summary = event;
    }
  });
  const watch =
    killAt &&
    setInterval(() => {
      const final = finalLinesSoFar(killAt.journal);
      if (final < killAt.lines || child.exitCode !== null) return;
      say(`SIGKILL with ${final} lines final`);
      child.kill('SIGKILL');
      clearInterval(watch);
    }, 50);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      if (watch) clearInterval(watch);
      resolve({ code, summary, seconds: (performance.now() - started) / 1000 });
    }),
  );
}

const journalTail = new Map<string, { offset: number; final: number; rest: string }>();

/** Lines the journal records as final, reading only what was appended since the last call. */
function finalLinesSoFar(journal: string): number {
  const state = journalTail.get(journal) ?? { offset: 0, final: 0, rest: '' };
  journalTail.set(journal, state);
  let fd: number;
  try {
    fd = openSync(path.join(journal, 'journal.ndjson'), 'r');
  } catch {
    return 0;
  }
  const buffer = Buffer.alloc(1 << 20);
  for (
    let read = readSync(fd, buffer, 0, buffer.length, state.offset);
    read > 0;
    read = readSync(fd, buffer, 0, buffer.length, state.offset)
  ) {
    state.offset += read;
    const lines = (state.rest + buffer.toString('utf8', 0, read)).split('\n');
    state.rest = lines.pop()!;
    for (const line of lines) {
      const entry = JSON.parse(line) as { e: string; final?: number[] };
      if (entry.e === 'done') state.final += entry.final?.length ?? 0;
    }
  }
  closeSync(fd);
  return state.final;
}

function runAdmin(file: string, databaseUrl: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'apply', file], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve, reject) =>
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`admin apply ${file} exited ${code}`)))),
  );
}

async function freshDatabase(server: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`--database must be a plain lower-case name: ${name}`);
  const url = `${server}/${name}`;
  await dropDatabase(url);
  await ensureDatabase(url);
  return url;
}

async function storedCounts(databaseUrl: string): Promise<Record<string, number>> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const { rows } = await db.query<Record<string, number>>(
    `SELECT (SELECT count(*) FROM transactions)::int AS transactions, (SELECT count(*) FROM notes)::int AS notes,
            (SELECT count(*) FROM historical_statements)::int AS statements`,
  );
  await db.end();
  return rows[0]!;
}

const failedLines = (journal: string) =>
  readFileSync(path.join(journal, 'failed.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { line: number }).line)
    .sort((a, b) => a - b);

const sameLines = (a: number[], b: number[]) => a.length === b.length && a.every((v, i) => v === b[i]);

async function main(): Promise<number> {
  const { values } = parseArgs({ options: OPTIONS, strict: true });
  const sizes = {
    accounts: Number(values.accounts),
    transactions: Number(values.transactions),
    notes: Number(values.notes),
    statements: Number(values.statements),
    invalidEvery: Number(values['invalid-every']),
  };
  const dir = path.resolve(values.dir ?? path.join(tmpdir(), `data-import-rehearsal-${Date.now()}`));
  mkdirSync(dir, { recursive: true });
  const timings: Record<string, number> = {};
  const checks: Record<string, boolean> = {};
  const timed = async <T>(name: string, step: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    say(`${name}…`);
    const result = await step();
    timings[name] = Math.round((performance.now() - started) / 100) / 10;
    say(`${name}: ${timings[name]} s`);
    // Kept up to date step by step, so a rehearsal stopped early still leaves its timings.
    writeFileSync(path.join(dir, 'rehearsal.json'), JSON.stringify({ sizes, timings, checks }, null, 2) + '\n');
    return result;
  };

  const databaseUrl = await freshDatabase(values.pg, values.database);
  const files: RehearsalFiles = await timed('generate files', () => generateFiles(dir, sizes));
  await timed(`create ${sizes.accounts} accounts (admin apply)`, async () => {
    for (const file of files.applyFiles) await runAdmin(file, databaseUrl);
  });
  if (values.runtime === 'dist') await timed('build', build);
  const port = await freePort();
  const service = spawnService('start', {
    runtime: values.runtime === 'tsx' ? 'tsx' : 'dist',
    port,
    logFile: path.join(dir, 'service.log'),
    env: {
      DATABASE_URL: databaseUrl,
      QUEUE_PREFIX: `{rehearsal-${process.pid}}`,
      ORG_RATE_LIMIT_PER_MINUTE: '100000000',
      TOKEN_SECRET: 'rehearsal-token-secret-of-at-least-32-characters',
      LOG_LEVEL: 'warn',
    },
  });
  try {
    await untilReady(service.base, 120_000);
    const env = { DATA_IMPORT_URL: service.base, DATA_IMPORT_API_KEY: API_KEY };
    const runsDir = path.join(dir, 'runs');
    const send = (kind: string, file: string, journal: string, killAtLines?: number) =>
      runClient(
        ['send', kind, file, '--journal', path.join(runsDir, journal), '--concurrency', values.concurrency],
        env,
        killAtLines === undefined ? undefined : { journal: path.join(runsDir, journal), lines: killAtLines },
      );

    const notes = await timed('send notes', () => send('notes', files.notes, 'notes-1'));
    const statements = await timed('send statements', () => send('statements', files.statements, 'statements-1'));
    const killed = await timed('send transactions until SIGKILL', () =>
      send('transactions', files.transactions, 'transactions-1', Math.floor(sizes.transactions / 2)),
    );
    checks['client was SIGKILLed halfway'] = killed.code === null;
    const resumed = await timed('resume transactions', () =>
      runClient(['resume', path.join(runsDir, 'transactions-1')], env),
    );

    checks['notes: failed.ndjson is exactly the invalid lines'] = sameLines(
      failedLines(path.join(runsDir, 'notes-1')),
      files.invalid.notes,
    );
    checks['statements: failed.ndjson is exactly the invalid lines'] = sameLines(
      failedLines(path.join(runsDir, 'statements-1')),
      files.invalid.statements,
    );
    checks['transactions: failed.ndjson is exactly the invalid lines'] = sameLines(
      failedLines(path.join(runsDir, 'transactions-1')),
      files.invalid.transactions,
    );
    checks['transactions: nothing unprocessed after resume'] = resumed.summary.unprocessed === 0;

    const reconcile = (out: string) =>
      runClient(
        [
          'reconcile',
          '--supplier',
          SUPPLIER,
          files.notes,
          files.statements,
          files.transactions,
          '--runs-dir',
          runsDir,
          '--out',
          path.join(dir, out),
        ],
        env,
      );
    const first = await timed('reconcile', () => reconcile('reconciliation-1.csv'));
    checks['reconciliation: zero differences'] = first.code === 0 && first.summary.accounts_differing === 0;

    const before = await storedCounts(databaseUrl);
    const again = await timed('second run of all three files', async () => [
      await send('notes', files.notes, 'notes-2'),
      await send('statements', files.statements, 'statements-2'),
      await send('transactions', files.transactions, 'transactions-2'),
    ]);
    const after = await storedCounts(databaseUrl);
    checks['second run: nothing added'] =
      JSON.stringify(before) === JSON.stringify(after) && again.every((r) => r.summary.succeeded === 0);
    const second = await timed('reconcile after the second run', () => reconcile('reconciliation-2.csv'));
    checks['second reconciliation: zero differences'] = second.code === 0 && second.summary.accounts_differing === 0;

    // Lines per second of each first send (invalid lines included: the client reads and answers them too).
    const perSecond = (lines: number, seconds: number) => Math.round(lines / seconds);
    const rates = {
      notes: perSecond(sizes.notes, notes.seconds),
      statements: perSecond(sizes.statements, statements.seconds),
      transactions: perSecond(sizes.transactions, killed.seconds + resumed.seconds),
    };
    const report = {
      sizes,
      timings,
      rates,
      checks,
      stored: after,
      summaries: {
        notes: notes.summary,
        statements: statements.summary,
        resumed: resumed.summary,
        first: first.summary.accounts,
      },
    };
    writeFileSync(path.join(dir, 'rehearsal.json'), JSON.stringify(report, null, 2) + '\n');
    process.stdout.write(formatReport(sizes, timings, rates, checks, after, dir));
    return Object.values(checks).every(Boolean) ? 0 : 1;
  } finally {
    await service.stop();
  }
}

function formatReport(
  sizes: object,
  timings: Record<string, number>,
  rates: Record<string, number>,
  checks: Record<string, boolean>,
  stored: object,
  dir: string,
): string {
  return [
    `rehearsal in ${dir}: ${JSON.stringify(sizes)}`,
    ...Object.entries(timings).map(([step, s]) => `  ${step.padEnd(40)} ${s} s`),
    ...Object.entries(rates).map(([kind, r]) => `  ${`rate: ${kind} (first send)`.padEnd(40)} ${r} lines/s`),
    `  stored: ${JSON.stringify(stored)}`,
    ...Object.entries(checks).map(([check, ok]) => `  ${ok ? 'ok  ' : 'FAIL'} ${check}`),
    '',
  ].join('\n');
}

main().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    say(`failed: ${(err as Error).stack ?? String(err)}`);
    process.exitCode = 1;
  },
);
