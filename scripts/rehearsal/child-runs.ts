// The rehearsal's child processes: the migration client and the admin CLI, run as a migration team runs them.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** Whether the client and admin run compiled (dist/, as `npm run client` and `npm run admin` do) or through tsx. */
let compiled = false;

/** From here on, the client and admin run from dist/ (built by the caller). */
export function runCompiled(): void {
  compiled = true;
}

/** One progress line on stderr. */
export const say = (message: string) => process.stderr.write(`rehearsal: ${message}\n`);

interface ClientResult {
  code: number | null;
  summary: Record<string, number | string>;
  seconds: number;
}

/**
 * Runs the client as a migration team does; with `killAt`, SIGKILLs it once its journal records that
 * many lines as final (read incrementally from the journal, as resume would read it).
 */
export function runClient(
  args: string[],
  env: Record<string, string>,
  killAt?: { journal: string; lines: number },
): Promise<ClientResult> {
  const started = performance.now();
  // Progress is a send/resume option: reconcile prints none.
  const progress = args[0] === 'reconcile' ? [] : ['--progress-interval', '1'];
  const entry = compiled ? ['dist/client/main.js'] : ['--import', 'tsx', 'client/main.ts'];
  const child = spawn(process.execPath, [...entry, ...args, '--json', ...progress], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let summary: Record<string, number | string> = {};
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const event = JSON.parse(line) as { event: string };
      if (event.event === 'summary') summary = event;
    }
  });
  const watch =
    killAt &&
    setInterval(() => {
      const final = finalLinesSoFar(killAt.journal);
      if (final < killAt.lines || child.exitCode !== null) return;
      say(`SIGKILL with ${final} lines final`);
      child.kill('SIGKILL');
      clearInterval(watch);
    }, 50);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      if (watch) clearInterval(watch);
      resolve({ code, summary, seconds: (performance.now() - started) / 1000 });
    }),
  );
}

const journalTail = new Map<string, { offset: number; final: number; rest: string }>();

/** Lines the journal records as final, reading only what was appended since the last call. */
function finalLinesSoFar(journal: string): number {
  const state = journalTail.get(journal) ?? { offset: 0, final: 0, rest: '' };
  journalTail.set(journal, state);
  let fd: number;
  try {
    fd = openSync(path.join(journal, 'journal.ndjson'), 'r');
  } catch {
    return 0;
  }
  const buffer = Buffer.alloc(1 << 20);
  for (
    let read = readSync(fd, buffer, 0, buffer.length, state.offset);
    read > 0;
    read = readSync(fd, buffer, 0, buffer.length, state.offset)
  ) {
    state.offset += read;
    const lines = (state.rest + buffer.toString('utf8', 0, read)).split('\n');
    state.rest = lines.pop()!;
    for (const line of lines) {
      const entry = JSON.parse(line) as { e: string; final?: number[] };
      if (entry.e === 'done') state.final += entry.final?.length ?? 0;
    }
  }
  closeSync(fd);
  return state.final;
}

export interface FakeVendor {
  /** STRIPE_API_BASE and STRIPE_SECRET_KEY for the service. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** `npm run fake-vendor` (compiled, or through tsx) on a free port, with the rehearsal's references. */
export async function startFakeVendor(runtime: 'dist' | 'tsx', references: string): Promise<FakeVendor> {
  const entry = runtime === 'dist' ? ['dist/scripts/fake-vendor.js'] : ['--import', 'tsx', 'scripts/fake-vendor.ts'];
  const child = spawn(process.execPath, [...entry, '--references', references, '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const settings = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^STRIPE_API_BASE=.*$/m.exec(out);
      if (line) resolve(line[0]);
    });
    child.once('exit', (code) => reject(new Error(`fake-vendor exited ${code} before serving`)));
  });
  say(`fake vendor: ${settings}`);
  return {
    env: Object.fromEntries(settings.split(' ').map((pair) => pair.split('=') as [string, string])),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export function runAdmin(file: string, databaseUrl: string): Promise<void> {
  const entry = compiled ? ['dist/scripts/admin.js'] : ['--import', 'tsx', 'scripts/admin.ts'];
  const child = spawn(process.execPath, [...entry, 'apply', file], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve, reject) =>
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`admin apply ${file} exited ${code}`)))),
  );
}
