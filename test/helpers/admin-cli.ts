// Runs the real admin CLI as a child process (node with tsx), as the platform team runs it.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { testDatabaseUrl } from './context';

const ROOT = path.join(__dirname, '../..');

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export function runAdmin(args: string[], opts: { databaseUrl?: string; stdin?: string } = {}): Promise<AdminRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: opts.databaseUrl ?? testDatabaseUrl }, timeout: 30_000 },
      (err, stdout, stderr) => {
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr, json });
      },
    );
    child.stdin!.end(opts.stdin ?? '');
  });
}
