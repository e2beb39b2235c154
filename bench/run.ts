// `npm run bench`: prepares its database and fixtures, starts the service as `npm start` does, and
// measures, in one run, the database's own ceiling for the transactions insert next to the service's
// transactions, notes, status and list figures and its memory at rest. Prints one table and writes
// bench/results.json. Options: see bench/options.ts (e.g. `npm run bench -- --only status,list`).
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { listExternal, prepareFixtures, writeExternal, type Fixtures } from './fixtures';
import type { DownloadResult, LoadSpec, WindowResult } from './load';
import { parseOptions, type BenchOptions, type Phase } from './options';
import { cpuSeconds, loadAverage, processTree, reapedChildrenCpuSeconds, rssMb } from './proc';
import { formatTable, type BenchResults, type CpuUse, type Throughput } from './report';
import { build, freePort, obtainToken, spawnService, untilReady, type ServiceProcess } from './service';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const say = (message: string) => process.stderr.write(`bench: ${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function runLoad<T extends WindowResult | DownloadResult>(spec: LoadSpec): Promise<T> {
  const child = fork(path.join(__dirname, 'load.ts'), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  let answer: { result?: T; error?: string } = {};
  child.once('message', (m: typeof answer) => (answer = m));
  child.send(spec);
  // Resolved on exit, not on the message: its CPU time is counted for this process once it is reaped.
  return new Promise<T>((resolve, reject) => {
    child.once('exit', (code) =>
      answer.result ? resolve(answer.result) : reject(new Error(answer.error ?? `load generator exited with ${code}`)),
    );
  });
}

const treeCpuSeconds = (pid: number) => processTree(pid).reduce((sum, p) => sum + cpuSeconds(p), 0);

/** CPU seconds of the service (with its child processes), the bench database's PostgreSQL backends and Redis. */
class CpuMeter {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private timer?: NodeJS.Timeout;
  private started = 0;
  constructor(
    private readonly pg: Client,
    private readonly redisPid: number,
    private readonly servicePid: number,
  ) {}

  private async backends(): Promise<number[]> {
    const { rows } = await this.pg.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return rows.map((r) => r.pid);
  }

  private async sample(): Promise<void> {
    for (const pid of await this.backends()) {
      const s = cpuSeconds(pid);
      if (!this.first.has(pid)) this.first.set(pid, s);
      this.last.set(pid, s);
    }
  }

  async start(): Promise<() => Promise<Omit<CpuUse, 'load'>>> {
    this.first.clear();
    this.last.clear();
    this.started = performance.now();
    const service0 = treeCpuSeconds(this.servicePid);
    const redis0 = cpuSeconds(this.redisPid);
    await this.sample();
    this.timer = setInterval(() => void this.sample().catch(() => undefined), 500);
    return async () => {
      clearInterval(this.timer);
      await this.sample();
      const wall = (performance.now() - this.started) / 1000;
      let postgres = 0;
      for (const [pid, s] of this.last) postgres += s - this.first.get(pid)!;
      const r2 = (v: number) => +(v / wall).toFixed(2);
      return { service: r2(treeCpuSeconds(this.servicePid) - service0), postgres: r2(postgres), redis: r2(cpuSeconds(this.redisPid) - redis0) };
    };
  }
}

async function throughput(meter: CpuMeter, spec: LoadSpec): Promise<Throughput> {
  const stop = await meter.start();
  reapedChildrenCpuSeconds();
  const started = performance.now();
  const w = await runLoad<WindowResult>(spec);
  const wall = (performance.now() - started) / 1000;
  const cpu = { ...(await stop()), load: +(reapedChildrenCpuSeconds() / wall).toFixed(2) };
  return { ...w, perSecond: w.items / w.seconds, requestsPerSecond: w.requests / w.seconds, cpu };
}

async function restingRss(pid: number): Promise<number> {
  await sleep(1500);
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(rssMb(pid));
    await sleep(200);
  }
  return samples.sort((a, b) => a - b)[2]!;
}

const idlePrefix = (prefix: string) => prefix.replace('}', '-idle}');

async function idleApart(
  opts: BenchOptions,
  env: Record<string, string>,
  logFile: string,
  f: Fixtures,
): Promise<{ apiRssMb: number; workerRssMb: number; apiRssServedMb: number }> {
  const apart = { ...env, QUEUE_PREFIX: idlePrefix(env.QUEUE_PREFIX!) };
  const worker = spawnService('worker', { runtime: opts.runtime, env: apart, port: await freePort(), logFile });
  const api = spawnService('api', { runtime: opts.runtime, env: apart, port: await freePort(), logFile });
  try {
    await untilReady(api.base);
    const [apiRssMb, workerRssMb] = await Promise.all([restingRss(api.pid), restingRss(worker.pid)]);
    // Then at rest again after a sign-in and a status request: what a serving API holds.
    const token = await obtainToken(api.base, f.apiKey);
    await fetch(`${api.base}/v1/data-import/account-transfer-status/${f.listSupplier}/${listExternal(1)}/`, {
      headers: { authorization: `Token ${token}` },
    }).then((r) => r.text());
    return { apiRssMb, workerRssMb, apiRssServedMb: await restingRss(api.pid) };
  } finally {
    await Promise.all([api.stop(), worker.stop()]);
  }
}

async function listPhase(service: ServiceProcess, token: string, f: Fixtures): Promise<NonNullable<BenchResults['list']>> {
  // One small request first, so modules loaded on first use do not count as the list's growth.
  await fetch(`${service.base}/v1/data-import/account-transfer-status/${f.listSupplier}/${listExternal(1)}/`, {
    headers: { authorization: `Token ${token}` },
  }).then((r) => r.text());
  const before = rssMb(service.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(service.pid))), 20);
  const d = await runLoad<DownloadResult>({ kind: 'download', base: service.base, token, path: `/v1/data-import/all-account-import-processes/${f.listSupplier}/` });
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(service.pid));
  if (d.status !== 200 || d.rows !== f.listAccounts) throw new Error(`list answered ${d.status} with ${d.rows} rows, expected ${f.listAccounts}`);
  return { ...d, accounts: f.listAccounts, megabytes: +(d.bytes / 1e6).toFixed(1), rssBeforeMb: before, rssPeakMb: peak, rssGrowthMb: peak - before };
}

async function removeQueueKeys(prefixes: string[]): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    for (const prefix of prefixes) {
      const stream = redis.scanStream({ match: `${prefix}*`, count: 1000 });
      for await (const keys of stream as AsyncIterable<string[]>) if (keys.length) await redis.unlink(...keys);
    }
  } finally {
    redis.disconnect();
  }
}

async function redisPid(): Promise<number> {
  const redis = new Redis(REDIS_URL);
  try {
    return Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1] ?? 0);
  } finally {
    redis.disconnect();
  }
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  const has = (p: Phase) => opts.phases.includes(p);
  const results: BenchResults = {
    date: new Date().toISOString(),
    host: { cpus: cpus().length, node: process.versions.node, loadBefore: loadAverage(), loadAfter: [] },
    params: { accounts: opts.accounts, listAccounts: opts.listAccounts, clients: opts.clients, batch: opts.batch, warmupSeconds: opts.warmupSeconds, seconds: opts.seconds, runtime: opts.runtime },
    serviceLog: opts.log ?? path.join(tmpdir(), `data-import-bench-${process.pid}.log`),
  };
  const t0 = Date.now();
  const f = await prepareFixtures(opts.databaseUrl, opts.accounts, opts.listAccounts);
  say(`fixtures ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (opts.runtime === 'dist') await build();

  const prefix = `{bench-${process.pid}}`;
  const env = { DATABASE_URL: opts.databaseUrl, REDIS_URL, QUEUE_PREFIX: prefix, ORG_RATE_LIMIT_PER_MINUTE: String(1e9) };
  const window = { clients: opts.clients, warmupMs: opts.warmupSeconds * 1000, durationMs: opts.seconds * 1000 };
  const runId = `${Date.now().toString(36)}`;
  const targets = Array.from({ length: opts.accounts }, (_, i) => ({ supplier: f.writeSupplier, external: writeExternal(f, i + 1) }));
  const pg = new Client({ connectionString: opts.databaseUrl });
  await pg.connect();
  let service: ServiceProcess | undefined;
  try {
    const apart = has('idle') ? await idleApart(opts, env, results.serviceLog, f) : undefined;
    const nodeArgs = opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts.cpuProfDir)}`] : [];
    service = spawnService('start', { runtime: opts.runtime, env, port: await freePort(), logFile: results.serviceLog, nodeArgs });
    await untilReady(service.base);
    // At rest before its first request, as the API and the worker apart were measured.
    if (apart) results.idle = { ...apart, serviceRssMb: await restingRss(service.pid) };
    const token = await obtainToken(service.base, f.apiKey);
    // First, while the process is as fresh as the API the list was first measured on: after the load
    // phases its heap has grown already and would hide the list's own growth.
    if (has('list')) {
      say('list');
      results.list = await listPhase(service, token, f);
    }
    const meter = new CpuMeter(pg, await redisPid(), service.pid);
    const ceiling = () => {
      say('ceiling');
      return throughput(meter, { kind: 'ceiling', ...window, databaseUrl: opts.databaseUrl, accountIds: f.writeAccountIds, batch: opts.batch, runId });
    };

    // The ceiling brackets the transactions phase, so machine load that drifts during the run weighs on both.
    const runs: Throughput[] = [];
    if (has('ceiling')) runs.push(await ceiling());
    if (has('transactions')) {
      say('transactions');
      results.transactions = await throughput(meter, { kind: 'transactions', ...window, base: service.base, token, targets, batch: opts.batch, runId });
      if (has('ceiling')) runs.push(await ceiling());
    }
    if (runs.length) {
      const rowsPerSecond = runs.reduce((s, r) => s + r.perSecond, 0) / runs.length;
      results.ceiling = { rowsPerSecond, runs };
      if (results.transactions) results.transactions.ratioToCeiling = results.transactions.perSecond / rowsPerSecond;
    }
    if (has('notes')) {
      say('notes');
      results.notes = await throughput(meter, { kind: 'notes', ...window, base: service.base, token, targets, batch: opts.batch, runId });
    }
    if (has('status')) {
      say('status');
      results.status = await throughput(meter, { kind: 'status', ...window, base: service.base, token, supplier: f.listSupplier, accounts: f.listAccounts });
    }
    if (results.idle) results.idle.serviceRssAfterLoadMb = rssMb(service.pid);
  } finally {
    const code = await service?.stop();
    if (code !== undefined && code !== 0) say(`service exited with ${code}; log: ${results.serviceLog}`);
    await pg.end();
    await removeQueueKeys([prefix, idlePrefix(prefix)]);
  }
  results.host.loadAfter = loadAverage();
  writeFileSync(opts.out, JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(formatTable(results) + '\n');
  say(`results in ${opts.out}, service log in ${results.serviceLog}, ${((Date.now() - t0) / 1000).toFixed(0)} s in all`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
