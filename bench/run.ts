// `npm run bench`: prepares its database and fixtures, starts the service as `npm start` does (a
// supervisor with one API and one worker child), and measures, in one run, the database's own ceiling
// for the transactions insert next to the service's transactions, notes, status and list figures, the
// memory of each process at rest, the cost of each read-path lever (bench/levers.ts), and the
// scale-out phase (2 API + 2 worker processes, one worker SIGKILLed mid-run). Prints one table against the performance targets and writes bench/results.json.
// Options: see bench/options.ts (e.g. `npm run bench -- --only status,list`). Curves: bench/curves.ts.
import { writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { listExternal, prepareFixtures, writeExternal, type Fixtures } from './fixtures';
import type { DownloadResult } from './load';
import type { WriteTarget } from './payloads';
import { CpuMeter, REDIS_URL, redisPid, removeQueueKeys, restingRss, runLoad, say, sleep, throughput } from './measure';
import { parseOptions, type BenchOptions, type Phase } from './options';
import { childrenByRole, loadAverage, rssMb } from './proc';
import { formatTable } from './report';
import type { BenchResults, Throughput } from './results';
import { accountsPhase, accountsRows } from './accounts';
import { leversPhase } from './levers';
import { realShapePhase, realShapeRows } from './real-shape';
import { scaleOutPhase } from './scale-out';
import { build, freePort, obtainToken, spawnService, untilReady, type ServiceProcess } from './service';

const statusOnce = (base: string, token: string, f: Fixtures) =>
  fetch(`${base}/v1/data-import/account-transfer-status/${f.listSupplier}/${listExternal(1)}/`, {
    headers: { authorization: `Token ${token}` },
  }).then((r) => r.text());

/** The children of a freshly started `npm start`, once both are there. */
async function children(service: ServiceProcess): Promise<{ api: number; worker: number }> {
  for (let i = 0; i < 300; i++) {
    const c = childrenByRole(service.pid);
    if (c.api.length === 1 && c.worker.length === 1) return { api: c.api[0]!, worker: c.worker[0]! };
    await sleep(100);
  }
  throw new Error('npm start did not show one API and one worker child');
}

async function listPhase(
  service: ServiceProcess,
  apiPid: number,
  token: string,
  f: Fixtures,
): Promise<NonNullable<BenchResults['list']>> {
  // One small request first, so modules loaded on first use do not count as the list's growth.
  await statusOnce(service.base, token, f);
  const before = rssMb(apiPid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(apiPid))), 20);
  const d = await runLoad<DownloadResult>({
    kind: 'download',
    base: service.base,
    token,
    path: `/v1/data-import/all-account-import-processes/${f.listSupplier}/`,
  });
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(apiPid));
  if (d.status !== 200 || d.rows !== f.listAccounts)
    throw new Error(`list answered ${d.status} with ${d.rows} rows, expected ${f.listAccounts}`);
  return {
    ...d,
    accounts: f.listAccounts,
    megabytes: +(d.bytes / 1e6).toFixed(1),
    rssBeforeMb: before,
    rssPeakMb: peak,
    rssGrowthMb: peak - before,
  };
}

/** What every phase of one bench run works with. */
interface Bench {
  opts: BenchOptions;
  has: (phase: Phase) => boolean;
  f: Fixtures;
  results: BenchResults;
  pg: Client;
  /** The service's environment (database, Redis, queue prefix, rate limit out of the way). */
  env: Record<string, string>;
  window: { clients: number; warmupMs: number; durationMs: number };
  targets: WriteTarget[];
  runId: string;
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  const results = newResults(opts);
  const t0 = Date.now();
  const f = await prepareFixtures(opts.databaseUrl, opts.accounts, opts.listAccounts);
  say(`fixtures ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (opts.runtime === 'dist') await build();

  const prefix = `{bench-${process.pid}}`;
  const scalePrefix = prefix.replace('}', '-scale}');
  const env = {
    DATABASE_URL: opts.databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    ORG_RATE_LIMIT_PER_MINUTE: String(1e9),
  };
  const window = { clients: opts.clients, warmupMs: opts.warmupSeconds * 1000, durationMs: opts.seconds * 1000 };
  const targets = Array.from({ length: opts.accounts }, (_, i) => ({
    supplier: f.writeSupplier,
    external: writeExternal(f, i + 1),
  }));
  const pg = new Client({ connectionString: opts.databaseUrl });
  await pg.connect();
  // Off, the tables are never analysed while they grow: plans then depend on how statements are sent.
  results.host.autovacuum = (await pg.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]!.autovacuum;
  const has = (p: Phase) => opts.phases.includes(p);
  const b: Bench = { opts, has, f, results, pg, env, window, targets, runId: `${Date.now().toString(36)}` };
  try {
    await npmStartPhases(b);
    if (has('levers')) {
      results.levers = await leversPhase({ runtime: opts.runtime, env, logFile: results.serviceLog, f, pg, window });
    }
    if (has('scaleout')) {
      const scaleEnv = { ...env, QUEUE_PREFIX: scalePrefix };
      const { batch, retrySeconds } = opts;
      const common = { runtime: opts.runtime, logFile: results.serviceLog, f, pg, window, targets, runId: b.runId };
      results.scaleOut = await scaleOutPhase({ ...common, env: scaleEnv, batch, retryForMs: retrySeconds * 1000 });
    }
  } finally {
    await pg.end();
    await removeQueueKeys([prefix, scalePrefix]);
  }
  results.host.loadAfter = loadAverage();
  writeFileSync(opts.out, JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(formatTable(results, [...realShapeRows(results), ...accountsRows(results.accounts)]) + '\n');
  say(
    `results in ${opts.out}, service log in ${results.serviceLog}, ${((Date.now() - t0) / 1000).toFixed(0)} s in all`,
  );
}

/** The results as they stand before any phase: the host and the parameters of this run. */
function newResults(opts: BenchOptions): BenchResults {
  return {
    date: new Date().toISOString(),
    host: { cpus: cpus().length, node: process.versions.node, loadBefore: loadAverage(), loadAfter: [] },
    params: {
      accounts: opts.accounts,
      listAccounts: opts.listAccounts,
      clients: opts.clients,
      batch: opts.batch,
      realClients: opts.realClients,
      realBatch: opts.realBatch,
      accountCount: opts.accountCount,
      accountDepth: opts.accountDepth,
      warmupSeconds: opts.warmupSeconds,
      seconds: opts.seconds,
      runtime: opts.runtime,
    },
    serviceLog: opts.log ?? path.join(tmpdir(), `data-import-bench-${process.pid}.log`),
  };
}

/** The phases measured on one `npm start` (one API and one worker child), stopped at the end. */
async function npmStartPhases(b: Bench): Promise<void> {
  const { opts, has, results } = b;
  const nodeArgs = opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts.cpuProfDir)}`] : [];
  const port = await freePort();
  // The worker child serves /metrics (its group commits) on a port of its own; only here, where one worker runs.
  const metrics = { port: await freePort(), token: `bench-metrics-${b.runId}-${'t'.repeat(16)}` };
  const service = spawnService('start', {
    runtime: opts.runtime,
    env: { ...b.env, WORKER_METRICS_PORT: String(metrics.port), METRICS_TOKEN: metrics.token },
    port,
    logFile: results.serviceLog,
    nodeArgs,
  });
  try {
    await untilReady(service.base);
    const pids = await children(service);
    results.pids = pids;
    let token: string | undefined;
    if (has('idle')) ({ idle: results.idle, token } = await idlePhase(service, pids, b.f));
    token ??= await obtainToken(service.base, b.f.apiKey);
    // First, while the API is as fresh as it was when the list was first measured: after the load
    // phases its heap has grown already and would hide the list's own growth.
    if (has('list')) {
      say('list');
      results.list = await listPhase(service, pids.api, token, b.f);
    }
    const meter = new CpuMeter(b.pg, await redisPid(), service.pid);
    await writePhases(b, meter, service.base, token);
    if (has('accounts')) {
      const { accountCount: count, clients, accountDepth: depth } = opts;
      results.accounts = await accountsPhase(meter, {
        ...{ base: service.base, token, pg: b.pg, supplier: b.f.accountSupplier, runId: b.runId },
        ...{ count, clients, depth, pids },
        metrics: { url: `http://127.0.0.1:${metrics.port}/metrics`, token: metrics.token },
      });
    }
    await readPhases(b, meter, service.base, token);
    if (results.idle)
      Object.assign(results.idle, { apiRssAfterLoadMb: rssMb(pids.api), workerRssAfterLoadMb: rssMb(pids.worker) });
  } finally {
    const code = await service.stop();
    if (code !== 0) say(`service exited with ${code}; log: ${results.serviceLog}`);
  }
}

/** Memory at rest before the first request, then the API's again after a sign-in (whose token the later
 * phases use) and one status request. */
async function idlePhase(service: ServiceProcess, pids: { api: number; worker: number }, f: Fixtures) {
  const [supervisorRssMb, apiRssMb, workerRssMb] = await Promise.all([
    restingRss(service.pid),
    restingRss(pids.api),
    restingRss(pids.worker),
  ]);
  const token = await obtainToken(service.base, f.apiKey);
  await statusOnce(service.base, token, f);
  return { idle: { supervisorRssMb, apiRssMb, workerRssMb, apiRssServedMb: await restingRss(pids.api) }, token };
}

/** The database's own insert ceiling around the transactions and real-shape windows, then notes. */
async function writePhases(b: Bench, meter: CpuMeter, base: string, token: string): Promise<void> {
  const { opts, has, results, window, targets, runId } = b;
  const write = (kind: 'transactions' | 'notes') => {
    say(kind);
    return throughput(meter, { kind, ...window, base, token, targets, batch: opts.batch, runId });
  };
  const ceiling = () => {
    say('ceiling');
    const { databaseUrl, batch } = opts;
    return throughput(meter, {
      kind: 'ceiling',
      ...window,
      databaseUrl,
      accountIds: b.f.writeAccountIds,
      batch,
      runId,
    });
  };
  // The ceiling brackets the transactions phase, so machine load that drifts during the run weighs on both.
  const runs: Throughput[] = [];
  if (has('ceiling')) runs.push(await ceiling());
  if (has('transactions')) results.transactions = await write('transactions');
  if (has('real')) {
    const { pg, opts: o } = b;
    const real = { ...window, clients: o.realClients, batch: o.realBatch, base, token, targets, runId, pg };
    results.real = await realShapePhase(meter, { ...real, databaseUrl: o.databaseUrl });
  }
  if (has('ceiling') && (has('transactions') || has('real'))) runs.push(await ceiling());
  if (runs.length) {
    const rowsPerSecond = runs.reduce((s, r) => s + r.perSecond, 0) / runs.length;
    results.ceiling = { rowsPerSecond, runs };
    if (results.transactions) results.transactions.ratioToCeiling = results.transactions.perSecond / rowsPerSecond;
  }
  if (has('notes')) results.notes = await write('notes');
}

async function readPhases(b: Bench, meter: CpuMeter, base: string, token: string): Promise<void> {
  if (!b.has('status')) return;
  say('status');
  const { listSupplier: supplier, listAccounts: accounts } = b.f;
  b.results.status = await throughput(meter, { kind: 'status', ...b.window, base, token, supplier, accounts });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
