// Keeps a fixed set of child processes running (node:cluster, so several API children share one
// listening port). A child that dies is logged and started again after a back-off that doubles while
// it keeps dying and resets once it has stayed up; restarts bunched in a short window are reported as
// a crash loop. stop() sends SIGTERM to every child (each drains on its own) and waits for them.
import cluster, { type Worker as ClusterChild } from 'node:cluster';
import type { Logger } from './logger';

export interface ChildSpec {
  role: string;
  /** The compiled (or tsx-run) entry file each child of this role runs. */
  exec: string;
  count: number;
  /** Node options for this role's children, after the ones every child gets (cluster's, else this process's). */
  execArgv?: string[];
}

export interface SupervisorPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
  /** A child that ran this long before dying starts again after firstDelayMs. */
  stableAfterMs: number;
  crashLoopRestarts: number;
  crashLoopWindowMs: number;
  /** After SIGTERM, a child still running this long later is SIGKILLed. */
  stopTimeoutMs: number;
}

const DEFAULT_POLICY: SupervisorPolicy = {
  firstDelayMs: 500,
  maxDelayMs: 30_000,
  stableAfterMs: 30_000,
  crashLoopRestarts: 5,
  crashLoopWindowMs: 60_000,
  // Above the API's own 10 s force-close of stalled downloads.
  stopTimeoutMs: 20_000,
};

interface Slot {
  role: string;
  index: number;
  exec: string;
  execArgv: string[];
  child?: ClusterChild;
  startedAt: number;
  delayMs: number;
  restarts: number[];
  timer?: NodeJS.Timeout;
}

export interface Supervisor {
  /** Pids of the running children by role, for logs, the bench and tests. */
  pids(): Record<string, number[]>;
  stop(): Promise<void>;
}

/** One slot per child to keep running: `count` of each role, none started yet. */
function childSlots(specs: ChildSpec[], policy: SupervisorPolicy): Slot[] {
  const baseExecArgv = cluster.settings.execArgv ?? process.execArgv;
  return specs.flatMap((spec) =>
    Array.from({ length: spec.count }, (_, index) => ({
      role: spec.role,
      index,
      exec: spec.exec,
      execArgv: [...baseExecArgv, ...(spec.execArgv ?? [])],
      startedAt: 0,
      delayMs: policy.firstDelayMs,
      restarts: [],
    })),
  );
}

/** SIGTERM, then SIGKILL if the child is still running after timeoutMs; resolves once it has exited. */
async function stopChild(child: ClusterChild, timeoutMs: number): Promise<void> {
  if (child.isDead()) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.process.kill('SIGTERM');
  const kill = setTimeout(() => child.process.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(kill);
}

export function supervise(specs: ChildSpec[], logger: Logger, policy: SupervisorPolicy = DEFAULT_POLICY): Supervisor {
  if (!cluster.isPrimary) throw new Error('supervise() runs in the primary process only');
  let stopping = false;
  const slots = childSlots(specs, policy);

  const start = (slot: Slot) => {
    slot.timer = undefined;
    // setupPrimary's settings hold for every later fork: each one is given its role's file and options.
    cluster.setupPrimary({ exec: slot.exec, execArgv: slot.execArgv });
    const child = cluster.fork();
    slot.child = child;
    slot.startedAt = Date.now();
    logger.info({ role: slot.role, index: slot.index, childPid: child.process.pid }, 'child started');
    child.once('exit', (code, signal) => onExit(slot, child, code, signal));
  };

  const onExit = (slot: Slot, child: ClusterChild, code: number | null, signal: string | null) => {
    if (slot.child === child) slot.child = undefined;
    if (stopping) return;
    const now = Date.now();
    if (now - slot.startedAt >= policy.stableAfterMs) slot.delayMs = policy.firstDelayMs;
    slot.restarts = [...slot.restarts.filter((t) => now - t < policy.crashLoopWindowMs), now];
    const details = {
      role: slot.role,
      index: slot.index,
      childPid: child.process.pid,
      code,
      signal,
      restartInMs: slot.delayMs,
    };
    if (slot.restarts.length >= policy.crashLoopRestarts) {
      logger.error(
        { ...details, restartsInWindow: slot.restarts.length, windowMs: policy.crashLoopWindowMs },
        'child crash loop',
      );
    } else {
      logger.error(details, 'child exited; restarting');
    }
    slot.timer = setTimeout(() => start(slot), slot.delayMs);
    slot.delayMs = Math.min(slot.delayMs * 2, policy.maxDelayMs);
  };

  slots.forEach(start);
  return {
    pids() {
      const out: Record<string, number[]> = {};
      for (const s of slots) if (s.child?.process.pid) (out[s.role] ??= []).push(s.child.process.pid);
      return out;
    },
    async stop() {
      stopping = true;
      for (const s of slots) clearTimeout(s.timer);
      await Promise.all(slots.flatMap((s) => (s.child ? [stopChild(s.child, policy.stopTimeoutMs)] : [])));
    },
  };
}
