// The API and the worker as real child processes (`node --import tsx api/main.ts`, `… worker/main.ts`),
// exactly as production starts them, so the suite can SIGKILL a worker mid-job or SIGTERM the API.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { until } from './ports';

const ROOT = path.resolve(__dirname, '../../..');

export interface ServiceProcess {
  name: string;
  readonly pid: number | undefined;
  /** Spawns the process and resolves once it is ready (or throws with the end of its output). */
  start(): Promise<void>;
  /** SIGTERM and wait: the graceful stop of a deploy. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait: a crash, an OOM kill, a lost node. */
  kill(): Promise<void>;
  running(): boolean;
  /** How often the process was started. */
  starts: number;
  /** Kills the process if it runs and closes its log file. */
  dispose(): Promise<void>;
}

export function serviceProcess(opts: {
  name: string;
  entry: 'api/main.ts' | 'worker/main.ts';
  env: Record<string, string>;
  logFile: string;
  /** Resolves to true once the process serves. */
  ready: () => Promise<boolean>;
  readyTimeoutMs?: number;
  /** Called with each whole line the process writes to stdout (its JSON log lines). */
  onLine?: (line: string) => void;
}): ServiceProcess {
  let child: ChildProcess | undefined;
  let log: WriteStream | undefined;
  let tail = '';

  const exited = (c: ChildProcess) =>
    c.exitCode !== null || c.signalCode !== null
      ? Promise.resolve(c.exitCode)
      : new Promise<number | null>((resolve) => c.once('exit', (code) => resolve(code)));

  const self: ServiceProcess = {
    name: opts.name,
    get pid() {
      return child?.pid;
    },
    starts: 0,
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    async start() {
      log ??= createWriteStream(opts.logFile, { flags: 'a' });
      const c = spawn(process.execPath, ['--import', 'tsx', opts.entry], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...opts.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = c;
      self.starts += 1;
      const keep = (chunk: Buffer) => {
        log?.write(chunk);
        tail = (tail + chunk.toString()).slice(-4000);
      };
      c.stdout.on('data', keep);
      c.stderr.on('data', keep);
      if (opts.onLine) createInterface({ input: c.stdout, crlfDelay: Infinity }).on('line', opts.onLine);
      await until(
        `${opts.name} to be ready`,
        async () => {
          if (c.exitCode !== null) throw new Error(`${opts.name} exited with ${c.exitCode}:\n${tail}`);
          return (await opts.ready()) ? true : undefined;
        },
        opts.readyTimeoutMs ?? 60_000,
        100,
      ).catch((err: Error) => {
        c.kill('SIGKILL');
        throw new Error(`${err.message}\n--- ${opts.name} output ---\n${tail}`);
      });
    },
    async stop() {
      const c = child;
      if (!c || !self.running()) return c?.exitCode ?? null;
      const done = exited(c);
      c.kill('SIGTERM');
      // A graceful stop is bounded by the API's own 10 s force-close; past 30 s it is a hang.
      const timer = setTimeout(() => c.kill('SIGKILL'), 30_000);
      const code = await done;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      const c = child;
      if (!c || !self.running()) return;
      const done = exited(c);
      c.kill('SIGKILL');
      await done;
    },
    async dispose() {
      await self.kill();
      await new Promise<void>((resolve) => (log ? log.end(resolve) : resolve()));
      log = undefined;
    },
  };
  return self;
}
