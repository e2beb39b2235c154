// The `accounts` phase (issue 19, "Speed"): `clients` connections schedule realistic accounts through
// POST /v2/data-import/accounts/ and wait for each to be PROCESSED (bench/account-load.ts). Measured
// around it: accounts per second, schedule → PROCESSED latency, CPU per account of the API, the worker,
// PostgreSQL and Redis, the database transactions and rows per account, the worker's group-commit
// size, and the API's and worker's resident memory sampled through the phase (flat over 100,000?).
import type { Client } from 'pg';
import type { AccountsResult } from './account-load';
import { clearAccountSupplier } from './fixtures';
import { type CpuMeter, monotonicUs, runLoad, say } from './measure';
import { rssMb } from './proc';
import type { Row } from './report';
import type { AccountsPhaseResult, RssTrack } from './results';

export const ACCOUNT_TARGET_PER_SECOND = 300;

interface Ctx {
  base: string;
  token: string;
  pg: Client;
  supplier: string;
  runId: string;
  count: number;
  clients: number;
  depth: number;
  pids: { api: number; worker: number };
  /** The worker's /metrics (WORKER_METRICS_PORT) and its token, when it serves one. */
  metrics?: { url: string; token: string };
}

async function databaseCounters(pg: Client): Promise<{ commits: number; inserted: number }> {
  const { rows } = await pg.query<{ commits: string; inserted: string }>(
    `SELECT xact_commit AS commits, tup_inserted AS inserted FROM pg_stat_database WHERE datname = current_database()`,
  );
  return { commits: Number(rows[0]!.commits), inserted: Number(rows[0]!.inserted) };
}

/** The worker's group_commit_jobs histogram for the accounts queue: transactions and jobs so far. */
async function groupCommits(metrics: Ctx['metrics']): Promise<{ count: number; sum: number } | undefined> {
  if (!metrics) return undefined;
  const res = await fetch(metrics.url, { headers: { authorization: `Bearer ${metrics.token}` } });
  if (!res.ok) return undefined;
  const text = await res.text();
  const read = (suffix: string) =>
    Number(
      new RegExp(
        `^group_commit_jobs_${suffix}\\{[^}]*queue="accounts"[^}]*outcome="committed"[^}]*\\} (\\S+)$`,
        'm',
      ).exec(text)?.[1] ?? 0,
    );
  return { count: read('count'), sum: read('sum') };
}

function rssSampler(pids: Ctx['pids']) {
  const started = Date.now();
  const samples: AccountsPhaseResult['rss']['samples'] = [];
  const take = () => {
    const round = (mb: number) => Math.round(mb * 10) / 10;
    // Every minute in the log too, so a long run's memory shows while it runs.
    if (samples.length % 12 === 1) {
      const last = samples[samples.length - 1]!;
      say(`accounts: RSS at ${last.seconds} s: API ${last.apiMb} MB, worker ${last.workerMb} MB`);
    }
    samples.push({
      seconds: Math.round((Date.now() - started) / 1000),
      apiMb: round(rssMb(pids.api)),
      workerMb: round(rssMb(pids.worker)),
    });
  };
  take();
  const timer = setInterval(take, 5_000);
  return (): AccountsPhaseResult['rss'] => {
    clearInterval(timer);
    take();
    const track = (key: 'apiMb' | 'workerMb'): RssTrack => ({
      startMb: samples[0]![key],
      endMb: samples[samples.length - 1]![key],
      peakMb: Math.max(...samples.map((s) => s[key])),
    });
    return { api: track('apiMb'), worker: track('workerMb'), samples };
  };
}

export async function accountsPhase(meter: CpuMeter, ctx: Ctx): Promise<AccountsPhaseResult> {
  say(`accounts: emptying ${ctx.supplier}`);
  await clearAccountSupplier(ctx.pg);
  say(`accounts: ${ctx.count} accounts, ${ctx.clients} clients × ${ctx.depth} awaiting PROCESSED`);
  const db0 = await databaseCounters(ctx.pg);
  const groups0 = await groupCommits(ctx.metrics);
  const stopRss = rssSampler(ctx.pids);
  const stopCpu = await meter.start();
  const started = performance.now();
  const fromUs = monotonicUs();
  const load = await runLoad<AccountsResult>({
    kind: 'accounts',
    base: ctx.base,
    token: ctx.token,
    supplier: ctx.supplier,
    runTag: ctx.runId,
    count: ctx.count,
    clients: ctx.clients,
    depth: ctx.depth,
    maxWaitMs: 300_000,
  });
  const wall = (performance.now() - started) / 1000;
  const window = { fromUs, toUs: monotonicUs() };
  const cpu = await stopCpu();
  const rss = stopRss();
  const db1 = await databaseCounters(ctx.pg);
  const groups1 = await groupCommits(ctx.metrics);
  const per = (v: number) => +(v / Math.max(1, load.processed)).toFixed(2);
  const ms = (cores: number | undefined) => per((cores ?? 0) * wall * 1000);
  const groupCommit =
    groups0 && groups1 && groups1.count > groups0.count
      ? {
          transactions: groups1.count - groups0.count,
          jobsPerTransaction: +((groups1.sum - groups0.sum) / (groups1.count - groups0.count)).toFixed(2),
        }
      : undefined;
  return {
    ...load,
    clients: ctx.clients,
    depth: ctx.depth,
    cpu,
    cpuMsPerAccount: { api: ms(cpu.api), worker: ms(cpu.worker), postgres: ms(cpu.postgres), redis: ms(cpu.redis) },
    kernelMsPerAccount: cpu.system && { api: ms(cpu.system.api), worker: ms(cpu.system.worker) },
    window,
    database: {
      transactionsPerAccount: per(db1.commits - db0.commits),
      rowsInsertedPerAccount: per(db1.inserted - db0.inserted),
    },
    groupCommit,
    rss,
  };
}

const n = (v: number) => v.toLocaleString('en-GB', { maximumFractionDigits: 1 });

export function accountsRows(a: AccountsPhaseResult | undefined): Row[] {
  if (!a) return [];
  const c = a.cpuMsPerAccount;
  return [
    {
      figure: `accounts: ${n(a.processed)} scheduled and PROCESSED, ${a.clients} clients × ${a.depth}`,
      value: `${n(a.perSecond)} accounts/s`,
      target: `≥ ${ACCOUNT_TARGET_PER_SECOND} accounts/s`,
      met: a.perSecond >= ACCOUNT_TARGET_PER_SECOND,
    },
    { figure: '  schedule → PROCESSED p50 / p95 / p99', value: `${a.p50Ms} / ${a.p95Ms} / ${a.p99Ms} ms`, target: '' },
    { figure: '  schedule request p50 / p99', value: `${a.scheduleP50Ms} / ${a.scheduleP99Ms} ms`, target: '' },
    { figure: '  errors', value: `${a.errors} of ${a.accounts}`, target: '0', met: a.errors === 0 },
    {
      figure: '  CPU per account',
      value: `API ${c.api} · worker ${c.worker} · pg ${c.postgres} · redis ${c.redis} ms`,
      target: '',
    },
    {
      figure: '  status polls per account',
      value: `${+(a.statusRequests / Math.max(1, a.processed)).toFixed(2)}`,
      target: '',
    },
    {
      figure: '  per account: DB transactions, rows inserted',
      value: `${a.database.transactionsPerAccount}, ${a.database.rowsInsertedPerAccount}`,
      target: '',
    },
    ...(a.groupCommit
      ? [
          {
            figure: '  worker group commit',
            value: `${a.groupCommit.jobsPerTransaction} jobs per transaction`,
            target: '≤ 16',
          },
        ]
      : []),
    {
      figure: '  RSS start → end (peak): API, worker',
      value: `${a.rss.api.startMb} → ${a.rss.api.endMb} (${a.rss.api.peakMb}), ${a.rss.worker.startMb} → ${a.rss.worker.endMb} (${a.rss.worker.peakMb}) MB`,
      target: '',
    },
  ];
}
