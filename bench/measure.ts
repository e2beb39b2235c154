// What every bench command measures with: the load generator as a child process, the CPU meter of the
// service, PostgreSQL and Redis, resting memory, and clean-up of the queue keys a run leaves.
import { fork } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { Client } from 'pg';
import type { AccountsResult } from './account-load';
import type { DownloadResult, HoldResult, LoadSpec, WindowResult } from './load';
import { childrenByRole, cpuSeconds, cpuSplitSeconds, processTree, reapedChildrenCpuSeconds, rssMb } from './proc';
import type { CpuUse, Throughput } from './results';

export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const say = (message: string) => process.stderr.write(`bench: ${message}\n`);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function runLoad<T extends WindowResult | DownloadResult | HoldResult | AccountsResult>(
  spec: LoadSpec,
): Promise<T> {
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

export const treeCpuSeconds = (pid: number) => processTree(pid).reduce((sum, p) => sum + cpuSeconds(p), 0);

/**
 * CPU seconds of the service's API and worker children (each with its own children), by role, and the
 * kernel's part of each (the children themselves; they start no processes): one read of /proc's tree.
 */
function roleCpuSeconds(servicePid: number): { api: number; worker: number; system: { api: number; worker: number } } {
  const { api, worker } = childrenByRole(servicePid);
  const sum = (pids: number[], of: (pid: number) => number) => pids.reduce((total, pid) => total + of(pid), 0);
  const system = (pid: number) => cpuSplitSeconds(pid).system;
  return {
    api: sum(api, treeCpuSeconds),
    worker: sum(worker, treeCpuSeconds),
    system: { api: sum(api, system), worker: sum(worker, system) },
  };
}

/** CPU seconds of the service (with its child processes), the bench database's PostgreSQL backends and Redis. */
export class CpuMeter {
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
    const { rows } = await this.pg.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
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
    const roles0 = roleCpuSeconds(this.servicePid);
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
      const roles = roleCpuSeconds(this.servicePid);
      return {
        service: r2(treeCpuSeconds(this.servicePid) - service0),
        // A child that exits within the phase (a SIGKILLed worker) leaves its role's sum: that figure is then low.
        api: r2(roles.api - roles0.api),
        worker: r2(roles.worker - roles0.worker),
        system: {
          api: r2(roles.system.api - roles0.system.api),
          worker: r2(roles.system.worker - roles0.system.worker),
        },
        postgres: r2(postgres),
        redis: r2(cpuSeconds(this.redisPid) - redis0),
      };
    };
  }
}

/** The machine's monotonic clock in microseconds (CLOCK_MONOTONIC, as V8's profiler stamps its samples). */
export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

export async function throughput(meter: CpuMeter, spec: LoadSpec): Promise<Throughput> {
  const stop = await meter.start();
  reapedChildrenCpuSeconds();
  const started = performance.now();
  const fromUs = monotonicUs();
  const w = await runLoad<WindowResult>(spec);
  const window = { fromUs, toUs: monotonicUs() };
  const wall = (performance.now() - started) / 1000;
  const cpu = { ...(await stop()), load: +(reapedChildrenCpuSeconds() / wall).toFixed(2) };
  return { ...w, perSecond: w.items / w.seconds, requestsPerSecond: w.requests / w.seconds, cpu, window };
}

export async function restingRss(pid: number): Promise<number> {
  await sleep(1500);
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(rssMb(pid));
    await sleep(200);
  }
  return samples.sort((a, b) => a - b)[2]!;
}

export async function removeQueueKeys(prefixes: string[]): Promise<void> {
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

export async function redisPid(): Promise<number> {
  const redis = new Redis(REDIS_URL);
  try {
    return Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1] ?? 0);
  } finally {
    redis.disconnect();
  }
}
