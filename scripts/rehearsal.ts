// `npm run rehearsal`: a whole migration on this machine. Sets up the supplier with the admin CLI,
// creates the accounts through the API with the client (`send accounts`), generates transactions,
// notes, statements and payment-instruction files with a known sprinkling of invalid lines, sends
// them with the data-import client against the service started as `npm start` starts it (its payment
// vendor the local fake, `npm run fake-vendor`, knowing the file's cards), SIGKILLs the
// client halfway through the transactions and resumes from the journal, then checks that failed.ndjson
// holds exactly the invalid lines, that the reconciliation shows no difference, and that a second run
// of the same files adds nothing. Prints the timings; sizes scale by flags (see OPTIONS).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { build, freePort, spawnService, untilReady } from '../bench/service';
import { dropDatabase, ensureDatabase } from '../prisma/migrate';
import { runAdmin, runClient, runCompiled, say, startFakeVendor } from './rehearsal/child-runs';
import { API_KEY, generateFiles, SUPPLIER, type RehearsalFiles, type Sizes } from './rehearsal/rehearsal-files';

const OPTIONS = {
  accounts: { type: 'string', default: '100000' },
  transactions: { type: 'string', default: '1000000' },
  notes: { type: 'string', default: '100000' },
  statements: { type: 'string', default: '50000' },
  'payment-instructions': { type: 'string', default: '10000' },
  'invalid-every': { type: 'string', default: '10000' },
  concurrency: { type: 'string', default: '16' },
  database: { type: 'string', default: 'data_import_rehearsal' },
  /** The PostgreSQL server (trust auth) where the database is dropped and created. */
  pg: { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432' },
  dir: { type: 'string' },
  runtime: { type: 'string', default: 'dist' },
} as const;

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
    `SELECT (SELECT count(*) FROM accounts)::int AS accounts, (SELECT count(*) FROM transactions)::int AS transactions, (SELECT count(*) FROM notes)::int AS notes,
            (SELECT count(*) FROM historical_statements)::int AS statements,
            (SELECT count(*) FROM payment_instructions)::int AS payment_instructions`,
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

/** What every step of a rehearsal works with, and where it records its timings and checks. */
interface Rehearsal {
  dir: string;
  runsDir: string;
  sizes: Sizes;
  files: RehearsalFiles;
  /** How the client finds the service and signs in. */
  env: Record<string, string>;
  concurrency: string;
  databaseUrl: string;
  timings: Record<string, number>;
  checks: Record<string, boolean>;
  timed<T>(name: string, step: () => Promise<T>): Promise<T>;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: OPTIONS, strict: true });
  const sizes = {
    accounts: Number(values.accounts),
    transactions: Number(values.transactions),
    notes: Number(values.notes),
    statements: Number(values.statements),
    paymentInstructions: Number(values['payment-instructions']),
    invalidEvery: Number(values['invalid-every']),
  };
  const dir = path.resolve(values.dir ?? path.join(tmpdir(), `data-import-rehearsal-${Date.now()}`));
  mkdirSync(dir, { recursive: true });
  const { timings, checks, timed } = stepRecorder(dir, sizes);

  const databaseUrl = await freshDatabase(values.pg, values.database);
  const files: RehearsalFiles = await timed('generate files', () => generateFiles(dir, sizes));
  // With dist (the default) the service, the client and admin all run compiled, as `npm start`,
  // `npm run client` and `npm run admin` run them; a build finds nothing to do on an unchanged tree.
  if (values.runtime === 'dist') {
    await timed('build', build);
    runCompiled();
  }
  await timed('set up the supplier (admin apply)', async () => {
    for (const file of files.applyFiles) await runAdmin(file, databaseUrl);
  });
  const runtime = values.runtime === 'tsx' ? 'tsx' : 'dist';
  const vendor = await startFakeVendor(runtime, files.vendorReferences);
  const service = await startService(runtime, dir, { DATABASE_URL: databaseUrl, ...vendor.env });
  try {
    await untilReady(service.base, 120_000);
    const env = { DATA_IMPORT_URL: service.base, DATA_IMPORT_API_KEY: API_KEY };
    const runsDir = path.join(dir, 'runs');
    const r: Rehearsal = {
      dir,
      runsDir,
      sizes,
      files,
      env,
      concurrency: values.concurrency,
      databaseUrl,
      timings,
      checks,
      timed,
    };
    return await rehearse(r);
  } finally {
    await service.stop();
    await vendor.stop();
  }
}

/** Times each step and keeps rehearsal.json up to date step by step, so a rehearsal stopped early still leaves its timings. */
function stepRecorder(dir: string, sizes: Sizes): Pick<Rehearsal, 'timings' | 'checks' | 'timed'> {
  const timings: Record<string, number> = {};
  const checks: Record<string, boolean> = {};
  const timed = async <T>(name: string, step: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    say(`${name}…`);
    const result = await step();
    timings[name] = Math.round((performance.now() - started) / 100) / 10;
    say(`${name}: ${timings[name]} s`);
    writeFileSync(path.join(dir, 'rehearsal.json'), JSON.stringify({ sizes, timings, checks }, null, 2) + '\n');
    return result;
  };
  return { timings, checks, timed };
}

/** The service as `npm start` starts it, on a free port, with rate limits out of the way. */
async function startService(runtime: 'tsx' | 'dist', dir: string, settings: Record<string, string>) {
  const port = await freePort();
  return spawnService('start', {
    runtime,
    port,
    logFile: path.join(dir, 'service.log'),
    env: {
      ...settings,
      QUEUE_PREFIX: `{rehearsal-${process.pid}}`,
      ORG_RATE_LIMIT_PER_MINUTE: '100000000',
      TOKEN_SECRET: 'rehearsal-token-secret-of-at-least-32-characters',
      LOG_LEVEL: 'warn',
    },
  });
}

/** The whole migration against a running service: first sends, reconciliation, second run, report. */
async function rehearse(r: Rehearsal): Promise<number> {
  const accounts = await r.timed(`create ${r.sizes.accounts} accounts (send accounts)`, () =>
    send(r, 'accounts', r.files.accounts, 'accounts-1'),
  );
  r.checks['accounts: every account created'] =
    accounts.code === 0 &&
    accounts.summary.succeeded === r.sizes.accounts &&
    (await storedCounts(r.databaseUrl)).accounts === r.sizes.accounts;
  const { notes, statements, killed, resumed } = await firstSends(r);
  const first = await r.timed('reconcile', () => reconcile(r, 'reconciliation-1.csv'));
  r.checks['reconciliation: zero differences'] = first.code === 0 && first.summary.accounts_differing === 0;
  const after = await secondRun(r);
  const second = await r.timed('reconcile after the second run', () => reconcile(r, 'reconciliation-2.csv'));
  r.checks['second reconciliation: zero differences'] = second.code === 0 && second.summary.accounts_differing === 0;

  // Lines per second of each first send (invalid lines included: the client reads and answers them too).
  const perSecond = (lines: number, seconds: number) => Math.round(lines / seconds);
  const rates = {
    accounts: perSecond(r.sizes.accounts, accounts.seconds),
    notes: perSecond(r.sizes.notes, notes.seconds),
    statements: perSecond(r.sizes.statements, statements.seconds),
    transactions: perSecond(r.sizes.transactions, killed.seconds + resumed.seconds),
  };
  const { sizes, timings, checks } = r;
  const summaries = {
    notes: notes.summary,
    statements: statements.summary,
    resumed: resumed.summary,
    first: first.summary.accounts,
  };
  const report = { sizes, timings, rates, checks, stored: after, summaries };
  writeFileSync(path.join(r.dir, 'rehearsal.json'), JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(formatReport(sizes, timings, rates, checks, after, r.dir));
  return Object.values(checks).every(Boolean) ? 0 : 1;
}

function send(r: Rehearsal, kind: string, file: string, journal: string, killAtLines?: number) {
  return runClient(
    ['send', kind, file, '--journal', path.join(r.runsDir, journal), '--concurrency', r.concurrency],
    r.env,
    killAtLines === undefined ? undefined : { journal: path.join(r.runsDir, journal), lines: killAtLines },
  );
}

function reconcile(r: Rehearsal, out: string) {
  const { files } = r;
  const inputs = [files.accounts, files.notes, files.statements, files.transactions, files.paymentInstructions];
  return runClient(
    ['reconcile', '--supplier', SUPPLIER, ...inputs, '--runs-dir', r.runsDir, '--out', path.join(r.dir, out)],
    r.env,
  );
}

/** Notes and statements whole; transactions SIGKILLed halfway, then resumed. Checks each failed.ndjson. */
async function firstSends(r: Rehearsal) {
  const { files, checks } = r;
  const notes = await r.timed('send notes', () => send(r, 'notes', files.notes, 'notes-1'));
  const statements = await r.timed('send statements', () => send(r, 'statements', files.statements, 'statements-1'));
  const payments = await r.timed('send payment instructions (fake vendor)', () =>
    send(r, 'payment-instructions', files.paymentInstructions, 'payment-instructions-1'),
  );
  const killed = await r.timed('send transactions until SIGKILL', () =>
    send(r, 'transactions', files.transactions, 'transactions-1', Math.floor(r.sizes.transactions / 2)),
  );
  checks['client was SIGKILLed halfway'] = killed.code === null;
  const resumed = await r.timed('resume transactions', () =>
    runClient(['resume', path.join(r.runsDir, 'transactions-1')], r.env),
  );
  for (const kind of ['notes', 'statements', 'transactions'] as const) {
    checks[`${kind}: failed.ndjson is exactly the invalid lines`] = sameLines(
      failedLines(path.join(r.runsDir, `${kind}-1`)),
      files.invalid[kind],
    );
  }
  checks['payment instructions: failed.ndjson is exactly the vendor refusals'] =
    payments.summary.succeeded ===
      Math.min(r.sizes.paymentInstructions, r.sizes.accounts) - files.invalid.paymentInstructions.length &&
    sameLines(failedLines(path.join(r.runsDir, 'payment-instructions-1')), files.invalid.paymentInstructions);
  checks['transactions: nothing unprocessed after resume'] = resumed.summary.unprocessed === 0;
  return { notes, statements, killed, resumed };
}

/** All three files sent again: nothing may be stored twice. Returns the stored counts after it. */
async function secondRun(r: Rehearsal): Promise<Record<string, number>> {
  const { files } = r;
  const before = await storedCounts(r.databaseUrl);
  const again = await r.timed('second run of all four files', async () => [
    await send(r, 'accounts', files.accounts, 'accounts-2'),
    await send(r, 'notes', files.notes, 'notes-2'),
    await send(r, 'statements', files.statements, 'statements-2'),
    await send(r, 'transactions', files.transactions, 'transactions-2'),
  ]);
  // A payment instruction already held answers 201 again (nothing added): only the stored count says.
  await r.timed('second run of the payment instructions', () =>
    send(r, 'payment-instructions', files.paymentInstructions, 'payment-instructions-2'),
  );
  const after = await storedCounts(r.databaseUrl);
  r.checks['second run: nothing added'] =
    JSON.stringify(before) === JSON.stringify(after) && again.every((result) => result.summary.succeeded === 0);
  return after;
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
