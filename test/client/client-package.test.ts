// The client as a migration host gets it: `npm run pack:client` bundles it into a tarball with no
// dependencies, `npm install -g` of that tarball installs offline, and the installed
// `data-import-client` runs outside the clone.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '../..');
let prefix: string;

beforeAll(() => {
  prefix = mkdtempSync(path.join(tmpdir(), 'data-import-client-install-'));
});
afterAll(() => rmSync(prefix, { recursive: true, force: true }));

it('packs to a tarball that installs offline with no dependencies and runs --help outside the clone', async () => {
  const packed = await run(process.execPath, [path.join(ROOT, 'scripts', 'pack-client.js')], { cwd: ROOT });
  const tarball = packed.stdout.trim().split('\n').pop()!;
  expect(path.basename(tarball)).toMatch(/^data-import-client-\d+\.\d+\.\d+\.tgz$/);

  await run('npm', ['install', '--global', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, tarball], {
    cwd: prefix,
  });
  const bin = path.join(prefix, 'bin', 'data-import-client');
  const env = { PATH: process.env.PATH!, HOME: prefix };

  const help = await run(bin, ['--help'], { cwd: prefix, env });
  expect(help.stdout).toMatch(/^usage: data-import-client <command>/);
  const send = await run(bin, ['send', '--help'], { cwd: prefix, env });
  expect(send.stdout).toMatch(/^usage: data-import-client send <kind> <file>/);
  expect(send.stdout).toContain('--dry-run');

  // validate runs the service's own schemas, bundled in: an invalid note fails its line.
  const file = path.join(prefix, 'notes.ndjson');
  writeFileSync(file, JSON.stringify({ import_supplier: 'S', external_account_number: 'A', is_pinned: 'x' }) + '\n');
  const validated = await run(bin, ['validate', 'notes', file, '--journal', path.join(prefix, 'v')], {
    cwd: prefix,
    env,
  }).then(
    () => ({ code: 0 }),
    (err: { code: number }) => err,
  );
  expect(validated.code).toBe(1);
  expect(readFileSync(path.join(prefix, 'v', 'failed.ndjson'), 'utf8')).toContain('"attr":"is_pinned"');
});
