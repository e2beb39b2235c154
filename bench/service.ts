// The service under test, as child processes: the combined process `npm start` runs, or the API and
// the worker apart (start:api, start:worker), from dist/ (built first, as `npm start` does) or from
// the TypeScript sources through tsx.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

export type Entry = 'start' | 'api' | 'worker';

const ROOT = path.join(__dirname, '..');
const SOURCES: Record<Entry, string> = { start: 'scripts/start', api: 'api/main', worker: 'worker/main' };

export interface ServiceProcess {
  pid: number;
  base: string;
  /** SIGTERM, then waits for the exit (SIGKILL after 20 s); resolves with the exit code. */
  stop(): Promise<number | null>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export function spawnService(
  entry: Entry,
  opts: { runtime: 'dist' | 'tsx'; env: Record<string, string>; port: number; logFile: string; nodeArgs?: string[] },
): ServiceProcess {
  const args =
    opts.runtime === 'dist'
      ? [...(opts.nodeArgs ?? []), path.join('dist', `${SOURCES[entry]}.js`)]
      : [...(opts.nodeArgs ?? []), '--import', 'tsx', `${SOURCES[entry]}.ts`];
  // The log file is the child's own stdout: its log lines never wait for this process to pass them on.
  const log = openSync(opts.logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...opts.env, PORT: String(opts.port), HOST: '127.0.0.1' },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    pid: child.pid!,
    base: `http://127.0.0.1:${opts.port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(kill);
      return code;
    },
  };
}

/**
 * Waits until /readyz answers 200 (PostgreSQL, Redis and a worker heartbeat all good), or /healthz
 * for an API that runs without workers on purpose.
 */
export async function untilReady(
  base: string,
  timeoutMs = 60_000,
  probe: '/readyz' | '/healthz' = '/readyz',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${base}${probe}`);
      const text = await res.text();
      // /readyz no longer waits for workers (it reports them): a bench does.
      if (res.ok && (probe !== '/readyz' || text.includes('"workers":"ok"'))) return;
      last = `${res.status} ${text}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`service at ${base} not ready within ${timeoutMs / 1000} s: ${last}`);
}

export async function obtainToken(base: string, apiKey: string): Promise<string> {
  const res = await fetch(`${base}/v1/graphql/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation($k: String!) { obtainToken(input: {APIKey: $k}) { token } }',
      variables: { k: apiKey },
    }),
  });
  const body = (await res.json()) as { data?: { obtainToken?: { token?: string } } };
  const token = body.data?.obtainToken?.token;
  if (!token) throw new Error(`obtainToken failed: ${JSON.stringify(body)}`);
  return token;
}

/** Runs `npm start`'s build step (tsc into dist/, migrations copied). */
export async function build(): Promise<void> {
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'build.js')], { cwd: ROOT, stdio: 'inherit' });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`build failed (exit ${code})`);
}
