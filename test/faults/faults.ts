// The faults the suite injects, one at a time, each while a fresh load of spec-following clients runs:
// what "down" means for it, how it is restored, and which request proves the service is back.
import { WORKER_LOCK_OPTIONS } from '../../shared/platform/queues';
import type { FaultStack, Tenant } from './infra/fault-stack';
import { pause, until } from './infra/ports';
import type { InvariantResult } from './load/invariants';
import type { JobRuns } from './load/job-runs';
import { sendAsSpecSays, type Outcome } from './load/spec-client';
import { INSTRUCTIONS_PATH, TRANSACTIONS_PATH, type RunningLoad } from './load/workload';

export interface FaultWindow {
  /** When the dependency went away and came back (epoch ms); several windows for repeated kills. */
  down: { from: number; to: number }[];
  notes: string[];
  /** Checks of the fault itself (the vendor's breaker behaviour), reported with the invariants. */
  checks?: InvariantResult[];
  /** Runs after the restore, alongside the recovery probe (the breakers closing, say); adds to checks. */
  settle?: () => Promise<void>;
  /**
   * The only jobs allowed to run an attempt again because their lock lapsed: those a SIGKILLed worker
   * held, and those active while Redis stayed away longer than a live worker keeps its locks.
   */
  killedJobs?: string[];
}

/**
 * A request whose worker was SIGKILLed must be finished by another worker within this of the kill; when
 * every worker was killed, by a restarted one within this of its return (until then no process exists
 * that could finish it, and how long a restart takes is the platform's, not the service's).
 */
export const REDELIVERY_BOUND_MS = 10_000;
/** Kills made to catch a worker holding a job whose request is still unfinished (see killWorker). */
const KILL_ATTEMPTS = 5;

export interface Fault {
  name: string;
  /** Which request proves recovery: a transaction import, or a payment instruction (vendor faults). */
  probe: 'transactions' | 'instruction';
  inject(ctx: FaultContext): Promise<FaultWindow>;
}

export interface FaultContext {
  stack: FaultStack;
  load: RunningLoad;
  /** How long a dependency stays down. */
  downMs: number;
  jobRuns: JobRuns;
}

/** Waits until the load has had `n` more final answers: faults strike a service that is busy. */
async function busy(ctx: FaultContext, n: number): Promise<void> {
  const target = ctx.load.answered() + n;
  const underWay = await until(
    'the load to be under way',
    async () => (ctx.load.answered() >= target ? true : ctx.load.finished() ? false : undefined),
    60_000,
    20,
  );
  if (!underWay) {
    throw new Error(
      `the phase's load ran out before its fault (${ctx.load.answered()} answers, every client at its maximum): raise requestsPerClient.max`,
    );
  }
}

/**
 * SIGKILLs, `times` times, the worker process holding a transactions job whose work is not yet committed
 * (or, `together`, every worker at once), restarting it after each; any other worker keeps working.
 * Measures how long the requests the killed process held take to be finished by the others or by it
 * once restarted.
 */
export function killWorker(
  times: number,
  opts: { together?: boolean; queue?: 'transactions' | 'accounts' } = {},
): Fault {
  const queue = opts.queue ?? 'transactions';
  const what = queue === 'accounts' ? 'mid-account-creation' : 'mid-batch';
  const label = opts.together ? `every worker SIGKILLed ${what}` : `worker SIGKILL ${what}`;
  return {
    name: times === 1 ? label : `${label} ×${times}`,
    probe: 'transactions',
    async inject(ctx) {
      const window: FaultWindow = { down: [], notes: [], killedJobs: [] };
      // `ms`: from the kill (a worker survived) or from the workers' return (every worker was killed).
      const redeliveries: { requests: number; ms: number }[] = [];
      for (let i = 0; i < times; i++) {
        // A worker commits its group in milliseconds: between finding a held unfinished job and the
        // kill, that job may have committed, and the kill then proves nothing. Such a kill is noted
        // and made again, at most KILL_ATTEMPTS times in all.
        for (let attempt = 1; ; attempt++) {
          const { names, held, heldIds, affected, from, restartedAt, ms } = await killHolder(ctx, window, i, {
            together: opts.together,
            queue,
          });
          if (affected.length === 0 && attempt < KILL_ATTEMPTS) {
            window.notes.push(`killed ${names} holding ${held} job(s), all committed by then: killing again`);
            continue;
          }
          redeliveries.push({ requests: affected.length, ms: opts.together ? ms - (restartedAt - from) : ms });
          const seconds = (at: number) => ((at - from) / 1000).toFixed(1);
          // Stalls are heard by job id (a burst's job carries several of the affected requests).
          const stalls = heldIds.flatMap((id) => ctx.jobRuns.stalled.get(id) ?? []);
          const movedBack = stalls.length > 0 ? Math.max(...stalls) : Number.NaN;
          window.notes.push(
            `killed ${names} holding ${held} job(s); its ${affected.length} unfinished ` +
              `request(s) were back in the queue after ${seconds(movedBack)} s (the worker restarted after ${seconds(restartedAt)} s) ` +
              `and finished after ${(ms / 1000).toFixed(1)} s`,
          );
          break;
        }
      }
      const slowest = Math.max(...redeliveries.map((r) => r.ms));
      const requests = redeliveries.reduce((sum, r) => sum + r.requests, 0);
      window.checks = [
        {
          name: opts.together
            ? `every request the killed workers held is finished within ${REDELIVERY_BOUND_MS / 1000} s of their return`
            : `every request a SIGKILLed worker held is finished within ${REDELIVERY_BOUND_MS / 1000} s of the kill`,
          ok: requests > 0 && slowest <= REDELIVERY_BOUND_MS,
          detail: `${requests} request(s), the last finished ${slowest} ms after ${opts.together ? 'the return' : 'its kill'}`,
        },
      ];
      return window;
    },
  };
}

/**
 * One kill: waits for a worker (the `turn`-th first, so repeated kills take turns) to hold a job of
 * `queue` whose request is unfinished, SIGKILLs it (or, `together`, every worker), notes the jobs it held
 * as allowed to run again, restarts it after the phase's downtime and waits for the requests it held
 * unfinished to be finished. `ms` counts from the kill.
 */
async function killHolder(
  ctx: FaultContext,
  window: FaultWindow,
  turn: number,
  opts: { together?: boolean; queue: string },
) {
  const { stack } = ctx;
  const together = opts.together ?? false;
  await busy(ctx, 1);
  const holder = await until(
    `a worker to hold an unfinished ${opts.queue} job`,
    async () => {
      const held = (await stack.heldJobs()).filter((h) => h.queue === opts.queue);
      const unfinished = new Set(await stack.unfinishedJobs(held.map((h) => h.id)));
      const order = [
        ...stack.workers.slice(turn % stack.workers.length),
        ...stack.workers.slice(0, turn % stack.workers.length),
      ];
      return order.find((w) => held.some((h) => h.pid === w.pid && unfinished.has(h.id)));
    },
    30_000,
    5,
  );
  const victims = together ? stack.workers : [holder];
  const pids = new Set(victims.map((w) => w.pid));
  const from = Date.now();
  await Promise.all(victims.map((w) => w.kill()));
  // Read after the kill: nothing finishes a dead worker's jobs before their locks lapse (seconds away).
  const held = (await stack.heldJobs()).filter((h) => pids.has(h.pid)).map((h) => h.id);
  const affected = await stack.unfinishedRequestsOfJobs(held);
  window.killedJobs!.push(...held);
  const finished = untilFinished(stack, affected, from);
  await pause(ctx.downMs);
  await Promise.all(victims.map((w) => w.start()));
  const restartedAt = Date.now();
  window.down.push({ from, to: restartedAt });
  // A scrape resets each worker's event-loop maximum: a restarted worker's module loading is not
  // time it spends holding locks, so it must not count in the phase's figure.
  await stack.workerEventLoopLagMs();
  const names = victims.map((w) => w.name).join(' + ');
  return { names, held: held.length, heldIds: held, affected, from, restartedAt, ms: await finished };
}

/** Polls until every request has its stored answer; resolves with the ms from `from` to the last one seen. */
async function untilFinished(stack: FaultStack, ids: string[], from: number): Promise<number> {
  await until(
    "the killed worker's requests to be finished",
    async () => ((await stack.unfinishedRequests(ids)).length === 0 ? true : undefined),
    120_000,
    50,
  ).catch(() => undefined);
  return (await stack.unfinishedRequests(ids)).length === 0 ? Date.now() - from : Number.POSITIVE_INFINITY;
}

export function restartRedis(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Fault {
  return {
    name: `redis restart (${signal})`,
    probe: 'transactions',
    async inject(ctx) {
      await busy(ctx, 2);
      const before = await ctx.stack.heldJobs();
      const from = Date.now();
      await ctx.stack.redis.stop(signal);
      await pause(ctx.downMs);
      await ctx.stack.redis.start();
      const to = Date.now();
      // A live worker keeps a job's lock through an outage shorter than this (jobs.ts, WORKER_LOCK_OPTIONS);
      // past it, the jobs active when Redis went away may run their attempt again, and that run finds its
      // result row finished. Those jobs are the ones active before the stop, or still active in the state
      // Redis comes back with (a job fetched in between).
      const grace = WORKER_LOCK_OPTIONS.lockDuration - WORKER_LOCK_OPTIONS.lockRenewTime;
      if (to - from < grace) return { down: [{ from, to }], notes: [] };
      const after = await ctx.stack.heldJobs().catch(() => []);
      const active = [...new Set([...before, ...after].map((job) => job.id))];
      return {
        down: [{ from, to }],
        notes: [
          `Redis was away ${to - from} ms, past the ${grace} ms a live worker keeps its locks: the ` +
            `${active.length} job(s) active then may run their attempt again`,
        ],
        killedJobs: active,
      };
    },
  };
}

export function restartPostgres(mode: 'fast' | 'immediate' = 'fast'): Fault {
  return {
    name: `postgres restart (${mode})`,
    probe: 'transactions',
    async inject(ctx) {
      await busy(ctx, 2);
      const from = Date.now();
      await ctx.stack.pg.stop(mode);
      await pause(ctx.downMs);
      await ctx.stack.pg.start();
      return { down: [{ from, to: Date.now() }], notes: [] };
    },
  };
}

/**
 * The API stopped and started again: gracefully (SIGTERM: requests in flight are answered), or killed
 * (SIGKILL: a crash in the middle of the transactions it commits itself, whose clients see the
 * connection drop and resend with their Idempotency-Key).
 */
export function restartApi(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Fault {
  return {
    name: `api ${signal} + start`,
    probe: 'transactions',
    async inject(ctx) {
      await busy(ctx, 2);
      const from = Date.now();
      let how = 'killed';
      if (signal === 'SIGTERM') {
        const code = await ctx.stack.api.stop();
        how = `graceful stop took ${Date.now() - from} ms, exit code ${code}`;
      } else {
        await ctx.stack.api.kill();
        await pause(ctx.downMs);
      }
      await ctx.stack.api.start();
      return { down: [{ from, to: Date.now() }], notes: [how] };
    },
  };
}

/**
 * The vendor turns slow (calls time out), then fails (500s) until the breaker of every worker is
 * open; while open, no call may reach it. Then it is healthy again and the breakers must close.
 */
export function vendorOutage(): Fault {
  return {
    name: 'vendor slow → failing → healthy',
    probe: 'instruction',
    async inject(ctx) {
      const { stack } = ctx;
      const notes: string[] = [];
      await busy(ctx, 1);
      const from = Date.now();
      stack.fake.setMode('slow');
      await pause(ctx.downMs);
      stack.fake.setMode('error500');
      const allOpen = async () => {
        const states = (await stack.breakerStates()).filter((s) => s !== undefined);
        return states.length > 0 && states.every((s) => s === 'open') ? true : undefined;
      };
      await until('every worker breaker to open', allOpen, 60_000, 50);
      notes.push(`breakers open ${((Date.now() - from) / 1000).toFixed(1)} s after the vendor turned slow`);
      // Fails fast: while every breaker is open, not one call reaches the vendor. Calls are read before
      // the states, so a call seen between two "all open" readings was sent while open.
      const calls = stack.fake.requests.length;
      const heldUntil = Date.now() + Math.min(ctx.downMs, 3_000);
      let sentWhileOpen = 0;
      while (Date.now() < heldUntil) {
        const before = stack.fake.requests.length;
        if (!(await allOpen())) break;
        sentWhileOpen = before - calls;
        await pause(50);
      }
      const checks: InvariantResult[] = [
        {
          name: 'no vendor call while every breaker is open (fails fast)',
          ok: sentWhileOpen === 0,
          detail: `${sentWhileOpen} call(s)`,
        },
      ];
      stack.fake.setMode('healthy');
      const to = Date.now();
      const settle = async () => {
        const closed = await until(
          'every worker breaker to close',
          async () =>
            (await stack.breakerStates()).every((s) => s === undefined || s === 'closed') ? true : undefined,
          60_000,
          100,
        ).catch(() => false);
        const states = (await stack.breakerStates()).join(',');
        checks.push({ name: 'every breaker closes once the vendor is healthy', ok: closed === true, detail: states });
        notes.push(`breakers closed ${((Date.now() - to) / 1000).toFixed(1)} s after the vendor recovered`);
      };
      return { down: [{ from, to }], notes, checks, settle };
    },
  };
}

/** Sends fresh requests of the probe's kind until one is acknowledged; resolves with its outcome. */
export async function probeRecovery(
  stack: FaultStack,
  tenant: Tenant,
  kind: Fault['probe'],
  accountFor: () => { external: string; id: number },
  label: string,
  deadline: number,
): Promise<{ outcome: Outcome; body: unknown; accountId: number; reference?: string; ids?: string[] }> {
  const account = accountFor();
  const client = { baseUrl: stack.baseUrl, token: tenant.token, deadline, hangMs: stack.options.resultWaitMs * 3 };
  if (kind === 'instruction') {
    const reference = stack.fake.addCard().id;
    const outcome = await sendAsSpecSays(
      {
        path: INSTRUCTIONS_PATH,
        body: {
          import_supplier: tenant.supplier,
          external_account_number: account.external,
          vendor: 'STRIPE',
          type: 'CARD',
          reference,
        },
        idempotencyKey: `${label}-probe`,
      },
      client,
    );
    return { outcome, body: outcome.body, accountId: account.id, reference };
  }
  const id = `${label}-probe`;
  const outcome = await sendAsSpecSays(
    {
      path: TRANSACTIONS_PATH,
      body: {
        import_supplier: tenant.supplier,
        external_account_number: account.external,
        transactions: [{ transaction_id: id, transaction_date: '2024-02-02', amount: '1.00', type: 'CREDIT' }],
      },
      idempotencyKey: `${label}-probe`,
    },
    client,
  );
  return { outcome, body: outcome.body, accountId: account.id, ids: [id] };
}
