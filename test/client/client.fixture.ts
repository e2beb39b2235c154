// The migration client against the real service: the app in-process (API and workers), a tenant with
// imported accounts, input files written to a temporary folder, and the client run as the child
// process a migration team runs.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTenant, type Tenant, type TestApp } from '../helpers/app';

const ROOT = path.join(__dirname, '../..');

export interface ClientWorld {
  tenant: Tenant;
  accounts: string[];
  dir: string;
}

export async function clientWorld(app: TestApp, accountCount: number): Promise<ClientWorld> {
  const accounts = Array.from({ length: accountCount }, (_, i) => `EXT-${String(i).padStart(5, '0')}`);
  const tenant = await createTenant(app, {
    accounts: accounts.map((external_account_number) => ({
      external_account_number,
      state: 'imported' as const,
      open_statement_from: '2019-10-01',
    })),
  });
  return { tenant, accounts, dir: mkdtempSync(path.join(tmpdir(), 'data-import-client-')) };
}

export interface ClientRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningClient {
  pid: number;
  /** Everything printed so far, stdout then stderr. */
  output(): string;
  done: Promise<ClientRun>;
}

/** Starts `data-import <args>` (node + tsx, as `npm run client` does) with the world's URL and key. */
export function startClient(
  baseUrl: string,
  apiKey: string,
  args: string[],
  env: Record<string, string> = {},
): RunningClient {
  const child = spawn(process.execPath, ['--import', 'tsx', 'client/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_IMPORT_URL: baseUrl, DATA_IMPORT_API_KEY: apiKey, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<ClientRun>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { pid: child.pid!, output: () => stdout + stderr, done };
}

export function runClient(
  baseUrl: string,
  apiKey: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<ClientRun> {
  return startClient(baseUrl, apiKey, args, env).done;
}

export function writeLines(dir: string, name: string, lines: string[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

type ResultFile = 'succeeded' | 'differs' | 'failed' | 'unprocessed';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function readResults(journal: string, name: ResultFile): Record<string, any>[] {
  const file = path.join(journal, `${name}.ndjson`);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The `--json` summary line of a run. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function summaryOf(run: ClientRun): Record<string, any> {
  const line = run.stdout.split('\n').find((l) => l.includes('"event":"summary"'));
  if (!line) throw new Error(`no summary in output:\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(line);
}

export function transaction(supplier: string, account: string, id: string, amount: string, type = 'CHARGE') {
  return {
    import_supplier: supplier,
    external_account_number: account,
    transaction_id: id,
    transaction_date: '2024-03-01',
    amount,
    type,
  };
}
