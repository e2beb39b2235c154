// The scale-out phase: `npm start` with 2 API and 2 worker processes on this one machine. First the
// transactions window as the 1 + 1 run measured it (throughput must not fall) and the status window
// (what a second API process buys on reads); then a window whose
// clients retry as the spec asks (Idempotency-Key, 500/503 retried as they are) while one worker is
// SIGKILLed a third of the way in. Afterwards every acknowledged transaction must be stored exactly
// once, no request may be left without an answer, and the supervisor must have replaced the worker.
import type { Client } from 'pg';
import type { Fixtures } from './fixtures';
import type { WindowResult } from './load';
import { CpuMeter, redisPid, runLoad, say, sleep, throughput } from './measure';
import { childrenByRole } from './proc';
import type { ScaleOutResult } from './results';
import type { WriteTarget } from './payloads';
import { freePort, obtainToken, spawnService, untilReady } from './service';

type WriteSpec = ScaleOutContext['window'] & { base: string; token: string; targets: WriteTarget[]; batch: number };

export interface ScaleOutContext {
  runtime: 'dist' | 'tsx';
  env: Record<string, string>;
  logFile: string;
  f: Fixtures;
  pg: Client;
  window: { clients: number; warmupMs: number; durationMs: number };
  targets: WriteTarget[];
  batch: number;
  runId: string;
  /** How long a retrying client keeps retrying one request: past BullMQ's stalled-job recovery. */
  retryForMs?: number;
}

const API = 2;
const WORKERS = 2;

async function untilChildren(pid: number, timeoutMs = 60_000): Promise<{ api: number[]; worker: number[] }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const children = childrenByRole(pid);
    if (children.api.length === API && children.worker.length === WORKERS) return children;
    if (Date.now() > deadline)
      throw new Error(`expected ${API} API and ${WORKERS} worker children, found ${JSON.stringify(children)}`);
    await sleep(200);
  }
}

async function storedRows(pg: Client, runId: string): Promise<{ rows: number; distinct: number }> {
  const { rows } = await pg.query<{ rows: string; distinct: string }>(
    `SELECT count(*) AS rows, count(DISTINCT (account_id, transaction_id)) AS distinct
       FROM transactions WHERE transaction_id LIKE $1 || '-%'`,
    [runId],
  );
  return { rows: Number(rows[0]!.rows), distinct: Number(rows[0]!.distinct) };
}

export async function scaleOutPhase(ctx: ScaleOutContext): Promise<ScaleOutResult> {
  const env = { ...ctx.env, API_PROCESSES: String(API), WORKER_PROCESSES: String(WORKERS) };
  const service = spawnService('start', { runtime: ctx.runtime, env, port: await freePort(), logFile: ctx.logFile });
  try {
    await untilReady(service.base);
    await untilChildren(service.pid);
    const token = await obtainToken(service.base, ctx.f.apiKey);
    const spec = { ...ctx.window, base: service.base, token, targets: ctx.targets, batch: ctx.batch };
    say(`scale-out: transactions on ${API} API + ${WORKERS} worker processes`);
    const meter = new CpuMeter(ctx.pg, await redisPid(), service.pid);
    const transactions = await throughput(meter, { kind: 'transactions', ...spec, runId: `${ctx.runId}s` });
    say(`scale-out: status on ${API} API processes`);
    const status = await throughput(meter, {
      kind: 'status',
      ...ctx.window,
      base: service.base,
      token,
      supplier: ctx.f.listSupplier,
      accounts: ctx.f.listAccounts,
    });

    const kill = await workerKilledMidRun(ctx, service.pid, spec);
    return { apiProcesses: API, workerProcesses: WORKERS, transactions, status, kill };
  } finally {
    const code = await service.stop();
    if (code !== 0) say(`scale-out service exited with ${code}; log: ${ctx.logFile}`);
  }
}

/** A transactions window whose clients retry as the spec asks while one worker is SIGKILLed a third of the
 * way in; then what was acknowledged against what was stored, and whether the worker was replaced. */
async function workerKilledMidRun(
  ctx: ScaleOutContext,
  servicePid: number,
  spec: WriteSpec,
): Promise<ScaleOutResult['kill']> {
  say('scale-out: one worker SIGKILLed mid-run, clients retrying');
  const killRun = `${ctx.runId}k`;
  const load = runLoad<WindowResult>({
    kind: 'transactions',
    ...spec,
    warmupMs: 0,
    runId: killRun,
    retryForMs: ctx.retryForMs ?? 120_000,
  });
  await sleep(ctx.window.durationMs / 3);
  const before = childrenByRole(servicePid);
  const killed = before.worker[0]!;
  process.kill(killed, 'SIGKILL');
  const killedAt = performance.now();
  const w = await load;
  const after = await untilChildren(servicePid).catch(() => childrenByRole(servicePid));
  const stored = await storedRows(ctx.pg, killRun);
  return {
    killedPid: killed,
    restarted: after.worker.length === WORKERS && !after.worker.includes(killed),
    requests: w.requests,
    acknowledgedItems: w.acknowledgedItems,
    storedRows: stored.rows,
    duplicates: stored.rows - stored.distinct,
    unfinished: w.unfinished,
    errors: w.errors,
    firstError: w.firstError,
    retries: w.retries,
    longestMs: w.maxMs,
    secondsAfterKill: +((performance.now() - killedAt) / 1000).toFixed(1),
  };
}
