// `npm run bench:curves`: the costs that grow with the work, as curves. Transactions per second while
// the transactions table grows (bulk rows seeded with generate_series between the points, not through
// the API, and not analysed unless --analyze, as a migration grows tables with autovacuum off), in the
// 100-item shape and in the real shape (10 per account and request, 16 clients); status latency as the accounts table grows; the API's memory while N clients wait on
// queued requests that no worker takes. Its own database (data_import_bench_curves by default) is
// dropped at the end unless --keep: the 10,000,000-row point leaves gigabytes behind.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { prepareFixtures, writeExternal, type Fixtures } from './fixtures';
import type { HoldResult } from './load';
import { CpuMeter, REDIS_URL, redisPid, removeQueueKeys, restingRss, runLoad, say, throughput } from './measure';
import { childrenByRole, rssMb } from './proc';
import { dropDatabase } from '../prisma/migrate';
import { formatCurves, type CurvesResults } from './curves-report';
import type { Throughput } from './results';
import { build, freePort, obtainToken, spawnService, untilReady } from './service';

function options(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      database: { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/data_import_bench_curves' },
      'tx-rows': { type: 'string', default: '0,1000000,3000000,10000000' },
      'status-accounts': { type: 'string', default: '1000000,10000000' },
      waiters: { type: 'string', default: '0,250,500,1000' },
      accounts: { type: 'string', default: '1000' },
      clients: { type: 'string', default: '32' },
      'real-clients': { type: 'string', default: '16' },
      'real-batch': { type: 'string', default: '10' },
      analyze: { type: 'boolean', default: false },
      seconds: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      'wait-seconds': { type: 'string', default: '15' },
      runtime: { type: 'string', default: 'dist' },
      out: { type: 'string', default: 'bench/curves.json' },
      keep: { type: 'boolean', default: false },
    },
  });
  const name = decodeURIComponent(new URL(values.database).pathname.slice(1));
  if (!name.startsWith('data_import_bench'))
    throw new Error(`the curves database must be named data_import_bench*, not ${name}`);
  const list = (flag: string, v: string) => {
    const xs = v.split(',').filter(Boolean).map(Number);
    if (xs.length > 20 || xs.some((x) => !Number.isInteger(x) || x < 0 || x > 100_000_000))
      throw new Error(`--${flag}: up to 20 whole numbers ≤ 100,000,000`);
    return [...xs].sort((a, b) => a - b);
  };
  if (values.runtime !== 'dist' && values.runtime !== 'tsx') throw new Error('--runtime is dist or tsx');
  // Declared, not inferred: a narrowed string would widen back to string in the inferred return type.
  const runtime: 'dist' | 'tsx' = values.runtime;
  return {
    databaseUrl: values.database,
    txRows: list('tx-rows', values['tx-rows']),
    statusAccounts: list('status-accounts', values['status-accounts']).filter((n) => n > 0),
    waiters: list('waiters', values.waiters),
    accounts: Number(values.accounts),
    window: {
      clients: Number(values.clients),
      warmupMs: Number(values.warmup) * 1000,
      durationMs: Number(values.seconds) * 1000,
    },
    real: { clients: Number(values['real-clients']), batch: Number(values['real-batch']) },
    analyze: values.analyze,
    waitSeconds: Number(values['wait-seconds']),
    runtime,
    out: values.out,
    keep: values.keep,
  };
}

/** Adds seeded rows until the transactions table holds `rows`; answers the seconds it took. */
async function growTransactions(pg: Client, f: Fixtures, rows: number, analyze: boolean): Promise<number> {
  const have = Number((await pg.query<{ n: string }>('SELECT count(*) AS n FROM transactions')).rows[0]!.n);
  if (have >= rows) return 0;
  const started = performance.now();
  // Spread over the write accounts as real imports are; ids cannot meet the bench's own (runId-…).
  // In statements of a million rows, so a 10,000,000-row point shows progress and no one statement
  // holds gigabytes of WAL.
  for (let from = have; from < rows; from += 1_000_000) {
    await pg.query(
      `INSERT INTO transactions (account_id, request_id, transaction_id, transaction_date, amount, type, reason, submitted)
       SELECT ($1::int[])[1 + g % array_length($1::int[], 1)], 'seed', 'seed-' || g, DATE '2024-01-01' + (g % 365)::int,
              (g % 997) + 0.25, 'CHARGE', 'IMPORTED_CHARGE', '{}'::jsonb
         FROM generate_series($2::bigint + 1, $3::bigint) g`,
      [f.writeAccountIds, from, Math.min(rows, from + 1_000_000)],
    );
    if (rows - have > 1_000_000) say(`  seeded ${Math.min(rows, from + 1_000_000).toLocaleString('en-GB')} rows`);
  }
  // Without it the service's plans must hold up on their own (issue 22): nothing analyses the table.
  if (analyze) await pg.query('ANALYZE transactions');
  return (performance.now() - started) / 1000;
}

function point(tableRows: number, seedSeconds: number, t: Throughput): CurvesResults['transactions'][number] {
  return {
    tableRows,
    seedSeconds,
    perSecond: t.perSecond,
    requestsPerSecond: t.requestsPerSecond,
    p99Ms: t.p99Ms,
    errors: t.errors,
    nodeMsPerRequest: (t.cpu.service / t.requestsPerSecond) * 1000,
    pgMsPerRequest: (t.cpu.postgres / t.requestsPerSecond) * 1000,
  };
}

async function memoryCurve(
  o: ReturnType<typeof options>,
  env: Record<string, string>,
  logFile: string,
  f: Fixtures,
  targets: { supplier: string; external: string }[],
) {
  // The API alone, every write through the queue (DIRECT_COMMIT=off): no worker takes the jobs, so every
  // request waits its whole RESULT_WAIT_MS.
  const api = spawnService('api', {
    runtime: o.runtime,
    env: { ...env, RESULT_WAIT_MS: String(o.waitSeconds * 1000), DIRECT_COMMIT: 'off' },
    port: await freePort(),
    logFile,
  });
  const points: CurvesResults['memory'] = [];
  try {
    await untilReady(api.base, 60_000, '/healthz');
    const token = await obtainToken(api.base, f.apiKey);
    for (const waiters of o.waiters) {
      say(`memory: ${waiters} clients waiting`);
      const restMb = await restingRss(api.pid);
      let peakMb = restMb;
      const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(api.pid))), 50);
      const held = waiters
        ? await runLoad<HoldResult>({
            kind: 'hold',
            base: api.base,
            token,
            targets,
            clients: waiters,
            batch: 100,
            runId: `m${Date.now().toString(36)}`,
          })
        : undefined;
      clearInterval(sampler);
      points.push({
        waiters,
        restMb,
        peakMb,
        perWaiterKb: waiters ? ((peakMb - restMb) * 1024) / waiters : 0,
        statuses: held?.statuses ?? {},
      });
    }
  } finally {
    await api.stop();
  }
  return points;
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  const started = Date.now();
  const logFile = path.join(tmpdir(), `data-import-curves-${process.pid}.log`);
  const f = await prepareFixtures(o.databaseUrl, o.accounts, 1);
  if (o.runtime === 'dist') await build();
  const prefix = `{curves-${process.pid}}`;
  const env = { DATABASE_URL: o.databaseUrl, REDIS_URL, QUEUE_PREFIX: prefix, ORG_RATE_LIMIT_PER_MINUTE: String(1e9) };
  const targets = Array.from({ length: o.accounts }, (_, i) => ({
    supplier: f.writeSupplier,
    external: writeExternal(f, i + 1),
  }));
  const results: CurvesResults = {
    date: new Date().toISOString(),
    window: o.window,
    real: o.real,
    analyzed: o.analyze,
    transactions: [],
    realPoints: [],
    status: [],
    memory: [],
    serviceLog: logFile,
  };
  const pg = new Client({ connectionString: o.databaseUrl });
  await pg.connect();
  try {
    await npmStartCurves({ o, pg, f, targets, env, logFile }, results);
    results.memory = await memoryCurve(o, env, logFile, f, targets);
  } finally {
    await pg.end();
    await removeQueueKeys([prefix]);
    if (!o.keep) await dropDatabase(o.databaseUrl);
  }
  writeFileSync(o.out, JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(formatCurves(results) + '\n');
  say(
    `results in ${o.out}, service log in ${logFile}, ${((Date.now() - started) / 1000).toFixed(0)} s in all${o.keep ? '' : '; database dropped'}`,
  );
}

/** What the curves measured on one running `npm start` work with. */
interface CurvesRun {
  o: ReturnType<typeof options>;
  pg: Client;
  f: Fixtures;
  targets: { supplier: string; external: string }[];
  env: Record<string, string>;
  logFile: string;
}

/** The transactions and status curves on one `npm start`, stopped at the end. */
async function npmStartCurves(run: CurvesRun, results: CurvesResults): Promise<void> {
  const { o, env, logFile } = run;
  const service = spawnService('start', { runtime: o.runtime, env, port: await freePort(), logFile });
  try {
    await untilReady(service.base);
    const token = await obtainToken(service.base, run.f.apiKey);
    const meter = new CpuMeter(run.pg, await redisPid(), service.pid);
    const load = { meter, base: service.base, token };
    await transactionsCurve(run, load, results);
    results.status = await statusCurve(run, load);
    results.processes = childrenByRole(service.pid);
  } finally {
    await service.stop();
  }
}

/** Both write shapes at each table size: 100 items a request, and the real shape. */
async function transactionsCurve(
  { o, pg, f, targets }: CurvesRun,
  { meter, base, token }: { meter: CpuMeter; base: string; token: string },
  results: CurvesResults,
): Promise<void> {
  for (const rows of o.txRows) {
    const seedSeconds = await growTransactions(pg, f, rows, o.analyze);
    const tableRows = Number((await pg.query<{ n: string }>('SELECT count(*) AS n FROM transactions')).rows[0]!.n);
    say(`transactions at ${tableRows} rows (seeded in ${seedSeconds.toFixed(0)} s)`);
    const runId = (shape: string) => `${shape}${rows}x${Date.now().toString(36)}`;
    const spec = { kind: 'transactions', ...o.window, base, token, targets } as const;
    const t = await throughput(meter, { ...spec, batch: 100, runId: runId('t') });
    results.transactions.push(point(tableRows, seedSeconds, t));
    const real = await throughput(meter, { ...spec, ...o.real, runId: runId('r') });
    results.realPoints.push(point(tableRows, 0, real));
  }
}

async function statusCurve(
  { o }: CurvesRun,
  { meter, base, token }: { meter: CpuMeter; base: string; token: string },
): Promise<CurvesResults['status']> {
  const points: CurvesResults['status'] = [];
  for (const accounts of o.statusAccounts) {
    // A list supplier of this size beside the smaller ones already seeded (and the transactions
    // emptied): the accounts tables then hold the sum of the sizes so far.
    const seedStarted = performance.now();
    const sized = await prepareFixtures(o.databaseUrl, o.accounts, accounts);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    say(`status at ${accounts} accounts (seeded in ${seedSeconds.toFixed(0)} s)`);
    const supplier = sized.listSupplier;
    const t = await throughput(meter, { kind: 'status', ...o.window, base, token, supplier, accounts });
    points.push({
      accounts,
      seedSeconds,
      perSecond: t.perSecond,
      p50Ms: t.p50Ms,
      p99Ms: t.p99Ms,
      errors: t.errors,
      nodeMsPerRequest: (t.cpu.service / t.requestsPerSecond) * 1000,
    });
  }
  return points;
}

main().catch((err: unknown) => {
  process.stderr.write(`curves failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
