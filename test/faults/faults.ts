// The faults the suite injects, one at a time, each while a fresh load of spec-following clients runs:
// what "down" means for it, how it is restored, and which request proves the service is back.
import type { FaultStack, Tenant } from './infra/fault-stack';
import { pause, until } from './infra/ports';
import type { InvariantResult } from './load/invariants';
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
}

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
}

/** Waits until the load has had `n` more final answers: faults strike a service that is busy. */
async function busy(ctx: FaultContext, n: number): Promise<void> {
  const target = ctx.load.answered() + n;
  await until('the load to be under way', async () => (ctx.load.answered() >= target ? true : undefined), 60_000, 20);
}

/**
 * SIGKILLs a worker process while transactions jobs are active, `times` times, restarting it after
 * each. With one worker process (or `together`, every worker at once) the killed process surely held
 * a job; otherwise they take turns, and the survivor keeps working.
 */
export function killWorker(times: number, opts: { together?: boolean } = {}): Fault {
  const label = opts.together ? 'every worker SIGKILLed mid-batch' : 'worker SIGKILL mid-batch';
  return {
    name: times === 1 ? label : `${label} ×${times}`,
    probe: 'transactions',
    async inject(ctx) {
      const window: FaultWindow = { down: [], notes: [] };
      for (let i = 0; i < times; i++) {
        await busy(ctx, 1);
        const { workers } = ctx.stack;
        const victims = opts.together ? workers : [workers[i % workers.length]!];
        // Mid-batch: only strike while transactions jobs are held.
        const active = await until('a transactions job to be active', async () => {
          const n = await ctx.stack.activeJobs('transactions');
          return n > 0 ? n : undefined;
        }, 30_000, 5);
        const from = Date.now();
        await Promise.all(victims.map((w) => w.kill()));
        window.notes.push(`killed ${victims.map((w) => w.name).join(' + ')} with ${active} job(s) active`);
        await pause(ctx.downMs);
        await Promise.all(victims.map((w) => w.start()));
        window.down.push({ from, to: Date.now() });
      }
      return window;
    },
  };
}

export function restartRedis(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Fault {
  return {
    name: `redis restart (${signal})`,
    probe: 'transactions',
    async inject(ctx) {
      await busy(ctx, 2);
      const from = Date.now();
      await ctx.stack.redis.stop(signal);
      await pause(ctx.downMs);
      await ctx.stack.redis.start();
      return { down: [{ from, to: Date.now() }], notes: [] };
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

export function restartApi(): Fault {
  return {
    name: 'api SIGTERM + start',
    probe: 'transactions',
    async inject(ctx) {
      await busy(ctx, 2);
      const from = Date.now();
      const code = await ctx.stack.api.stop();
      const stoppedIn = Date.now() - from;
      await ctx.stack.api.start();
      return { down: [{ from, to: Date.now() }], notes: [`graceful stop took ${stoppedIn} ms, exit code ${code}`] };
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
        { name: 'no vendor call while every breaker is open (fails fast)', ok: sentWhileOpen === 0, detail: `${sentWhileOpen} call(s)` },
      ];
      stack.fake.setMode('healthy');
      const to = Date.now();
      const settle = async () => {
        const closed = await until(
          'every worker breaker to close',
          async () => ((await stack.breakerStates()).every((s) => s === undefined || s === 'closed') ? true : undefined),
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
        body: { import_supplier: tenant.supplier, external_account_number: account.external, vendor: 'STRIPE', type: 'CARD', reference },
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
