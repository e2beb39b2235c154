// `npm start` as a supervisor: the API and the workers run as child processes that are restarted when
// they die, and SIGTERM stops them all. The first test runs the real scripts/start.ts (under tsx, as
// the children then are); the second drives the back-off and crash-loop report with a child that
// always fails.
import { spawn } from 'node:child_process';
import cluster from 'node:cluster';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { supervise } from '../../shared/platform/supervisor';
import { freePort } from '../faults/infra/ports';
import { testDatabaseUrl, uniqueSuffix } from '../helpers/context';
import { until } from '../helpers/until';

const ROOT = path.join(__dirname, '..', '..');

interface LogLine {
  name?: string;
  msg?: string;
  role?: string;
  childPid?: number;
  pid?: number;
  signal?: string | null;
  restartInMs?: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function startService(port: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: `{test-${uniqueSuffix()}}`,
      TOKEN_SECRET: 'test-secret-that-is-long-enough-for-hs256-keys',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  let text = '';
  let pending = '';
  const take = (chunk: Buffer) => {
    text += chunk.toString();
    pending += chunk.toString();
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part) as LogLine);
      } catch {
        // a line that is not JSON (a boot error): kept in `text` only
      }
    }
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = (role: string) =>
    lines.filter((l) => l.msg === 'child started' && l.role === role).map((l) => l.childPid!);
  return { child, lines, output: () => text.slice(-4000), exited, started };
}

const answers = async (base: string) => {
  const res = await fetch(`${base}/readyz`);
  return res.ok ? true : undefined;
};

describe('npm start supervises the API and the workers', () => {
  it('restarts a SIGKILLed API child and a SIGKILLed worker child, answers again, and stops every child on SIGTERM', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const service = startService(port);
    try {
      await until('the service to be ready', () => answers(base), 90_000, 200).catch((err: Error) => {
        throw new Error(`${err.message}\n${service.output()}`);
      });
      const [api] = service.started('api');
      const [worker] = service.started('worker');
      expect(api).not.toBe(service.child.pid);
      expect(worker).not.toBe(api);

      process.kill(api!, 'SIGKILL');
      const newApi = await until('a new API child', () => service.started('api')[1], 30_000);
      await until('the restarted API to answer', () => answers(base), 60_000, 200);
      expect(newApi).not.toBe(api);
      expect(service.lines).toContainEqual(
        expect.objectContaining({ msg: 'child exited; restarting', role: 'api', childPid: api, signal: 'SIGKILL' }),
      );

      process.kill(worker!, 'SIGKILL');
      const newWorker = await until('a new worker child', () => service.started('worker')[1], 30_000);
      await until(
        'the new worker to take jobs',
        () => (service.lines.some((l) => l.msg === 'workers running' && l.pid === newWorker) ? true : undefined),
        60_000,
      );

      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      expect([newApi, newWorker].filter((pid) => alive(pid))).toEqual([]);
      expect(
        service.lines
          .filter((l) => l.msg === 'shutting down')
          .map((l) => l.name)
          .sort(),
      ).toEqual(['api', 'data-import', 'worker']);
    } finally {
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
      for (const pid of [...service.started('api'), ...service.started('worker')])
        if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 240_000);
});

describe('the supervisor policy', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'supervisor-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('doubles the back-off of a child that keeps dying, up to the maximum, and reports the crash loop', async () => {
    const failing = path.join(dir, 'failing-child.js');
    writeFileSync(failing, 'process.exit(3);\n');
    // The children are plain JavaScript: none of jest's runtime flags.
    cluster.setupPrimary({ execArgv: [], silent: true });
    const lines: LogLine[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
    const policy = {
      firstDelayMs: 20,
      maxDelayMs: 80,
      stableAfterMs: 60_000,
      crashLoopRestarts: 4,
      crashLoopWindowMs: 60_000,
      stopTimeoutMs: 5_000,
    };
    const supervisor = supervise([{ role: 'failing', exec: failing, count: 1 }], logger, policy);
    try {
      const exits = () => lines.filter((l) => l.msg === 'child exited; restarting' || l.msg === 'child crash loop');
      await until('six exits', () => (exits().length >= 6 ? true : undefined), 60_000);
      expect(
        exits()
          .slice(0, 6)
          .map((l) => l.restartInMs),
      ).toEqual([20, 40, 80, 80, 80, 80]);
      expect(
        exits()
          .slice(0, 6)
          .map((l) => l.msg === 'child crash loop'),
      ).toEqual([false, false, false, true, true, true]);
    } finally {
      await supervisor.stop();
    }
    expect(supervisor.pids()).toEqual({});
  }, 90_000);

  it("starts each role's children with the Node options of its spec, after the common ones", async () => {
    const reporting = path.join(dir, 'reporting-child.js');
    writeFileSync(reporting, 'process.send(process.execArgv); setInterval(() => undefined, 1000);\n');
    cluster.setupPrimary({ execArgv: ['--no-warnings'], silent: true });
    const logger = pino({ level: 'silent' });
    const reported = new Map<number, string[]>();
    const onMessage = (child: { process: { pid?: number } }, argv: string[]) => reported.set(child.process.pid!, argv);
    cluster.on('message', onMessage);
    const supervisor = supervise(
      [
        { role: 'tuned', exec: reporting, count: 1, execArgv: ['--max-semi-space-size=8'] },
        { role: 'plain', exec: reporting, count: 1 },
      ],
      logger,
    );
    try {
      await until('both children to report', () => (reported.size === 2 ? true : undefined), 30_000);
      const { tuned, plain } = supervisor.pids();
      expect(reported.get(tuned![0]!)).toEqual(['--no-warnings', '--max-semi-space-size=8']);
      expect(reported.get(plain![0]!)).toEqual(['--no-warnings']);
    } finally {
      cluster.off('message', onMessage);
      await supervisor.stop();
    }
  }, 30_000);

  it('SIGKILLs a child that is still running stopTimeoutMs after its SIGTERM', async () => {
    const stubborn = path.join(dir, 'stubborn-child.js');
    // Ignores SIGTERM and tells the supervisor once it does (so the test knows the handler is in place).
    writeFileSync(
      stubborn,
      "process.on('SIGTERM', () => undefined); setInterval(() => undefined, 1000); process.send('ready');\n",
    );
    cluster.setupPrimary({ execArgv: [], silent: true });
    const lines: LogLine[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
    const policy = {
      firstDelayMs: 20,
      maxDelayMs: 80,
      stableAfterMs: 60_000,
      crashLoopRestarts: 4,
      crashLoopWindowMs: 60_000,
      stopTimeoutMs: 300,
    };
    const ready = new Promise<void>((resolve) => cluster.once('message', () => resolve()));
    const supervisor = supervise([{ role: 'stubborn', exec: stubborn, count: 1 }], logger, policy);
    await ready;
    const [pid] = supervisor.pids().stubborn!;

    await supervisor.stop();

    expect(alive(pid!)).toBe(false);
    expect(lines.filter((l) => l.msg === 'child exited; restarting')).toEqual([]);
  }, 30_000);
});
