// First use is fast and says what it does: `npm start`'s build step compiles only when a source changed
// since the last build (a stamp in dist/), saying "building…" when it does, and the clone's client and
// admin run compiled JavaScript from dist/ through the same step (no TypeScript loader, no npx cache).
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const STAMP = path.join(ROOT, 'dist', '.build-stamp');
const BUILD_INFO = path.join(ROOT, 'dist', '.tsbuildinfo');

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const build = () => run(process.execPath, ['scripts/build.js']);

describe('build step and compiled commands', () => {
  beforeAll(async () => {
    // Whatever state dist/ is in, this leaves it current.
    expect((await build()).code).toBe(0);
  }, 600_000);

  it('an unchanged tree compiles nothing and prints nothing', async () => {
    const before = statSync(BUILD_INFO).mtimeMs;
    const again = await build();
    expect(again).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(statSync(BUILD_INFO).mtimeMs).toBe(before);
  });

  it('a stamp that does not match the sources compiles again, says "building…", and leaves a matching stamp', async () => {
    const current = readFileSync(STAMP, 'utf8');
    writeFileSync(STAMP, 'a stamp of other sources\n');
    const rebuilt = await build();
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stderr).toMatch(/^building… compiling TypeScript into dist\/ \(sources changed;/);
    expect(rebuilt.stderr).toMatch(/built in \d+\.\d s/);
    expect(readFileSync(STAMP, 'utf8')).toBe(current);
    expect((await build()).stderr).toBe('');
  }, 600_000);

  it('the clone client prints its help, every kind included, from dist/', async () => {
    for (const [command, args] of [
      [process.execPath, ['client/bin/data-import-client.js', '--help']],
      [process.execPath, ['client/bin/data-import-client.js', 'help']],
      ['npm', ['run', '--silent', 'client', '--', '--help']],
    ] as const) {
      const { code, stdout, stderr } = await run(command, [...args]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toMatch(/^usage: data-import-client <command>/);
      expect(stdout).toContain('kinds: accounts, notes, transactions, statements, payment-instructions');
    }
    // The bin loads the compiled client, not the TypeScript sources.
    const bin = readFileSync(path.join(ROOT, 'client', 'bin', 'data-import-client.js'), 'utf8');
    expect(bin).toContain("require('../../dist/client/main.js')");
    expect(bin).not.toContain('tsx');
  }, 120_000);

  it('admin runs compiled and its apply help names every section of a JSON file', async () => {
    const { code, stdout, stderr } = await run('npm', ['run', '--silent', 'admin', '--', 'apply', '--help']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    for (const section of ['suppliers', 'organisations', 'operations_teams', 'products', 'accounts'])
      expect(stdout).toContain(section);
    const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts;
    expect(scripts.admin).toBe('node scripts/build.js && node dist/scripts/admin.js');
  }, 120_000);
});
