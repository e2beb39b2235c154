// The admin CLI run as the platform team runs it: a child process (test/helpers/admin-cli.ts).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { digest } from '../../shared/auth/secrets';
import { obtainToken, startTestApp, type TestApp } from '../helpers/app';
import { runAdmin } from '../helpers/admin-cli';
import { testDatabaseUrl, uniqueSuffix } from '../helpers/context';

const admin = (args: string[], databaseUrl?: string) => runAdmin(args, { databaseUrl });

describe('admin CLI', () => {
  let app: TestApp;
  let dir: string;
  const s = uniqueSuffix();
  const supplier = `CLI_${s}`;
  const org = `cli-${s}`;

  beforeAll(async () => {
    app = await startTestApp();
    dir = await mkdtemp(path.join(tmpdir(), 'admin-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await app.close();
  });

  it('lists every command in words under `help` and `--help`, and explains one command under `<command> --help`', async () => {
    const [run, dashed, apply, account] = await Promise.all([
      admin(['help']),
      admin(['--help']),
      admin(['apply', '--help'], 'postgresql://nobody@127.0.0.1:1/none'),
      admin(['accounts', 'import', '--help'], 'postgresql://nobody@127.0.0.1:1/none'),
    ]);
    expect([run.code, dashed.code, apply.code, account.code]).toEqual([0, 0, 0, 0]);
    expect(run.json).toBeUndefined();
    expect(dashed.stdout).toBe(run.stdout);
    expect(apply.stdout).toMatch(/^usage: admin apply <file\.json\|file\.ndjson\|file\.csv>\n/);
    expect(apply.stdout).toContain('committed in\nchunks of 2,000 accounts');
    expect(account.stdout).toContain('--file <accounts.ndjson|.csv>');
    const commands = [...run.stdout.matchAll(/^ {2}(admin [a-z -]+?)(?: [<[|]|$)/gm)].map((m) => m[1]!.trim());
    expect(commands).toEqual(
      expect.arrayContaining([
        'admin apply',
        'admin suppliers create',
        'admin suppliers set-status',
        'admin suppliers set-document-root',
        'admin suppliers set-send-emails',
        'admin suppliers list',
        'admin organisations create',
        'admin organisations assign',
        'admin organisations unassign',
        'admin organisations list',
        'admin organisations disable',
        'admin organisations enable',
        'admin api-keys create',
        'admin api-keys list',
        'admin api-keys revoke',
        'admin accounts stage',
        'admin accounts mark-in-progress',
        'admin accounts import',
        'admin accounts list',
        'admin accounts show',
        'admin accounts cancel',
      ]),
    );
  });

  it('applies a file, printing the generated key once, then applies it again changing nothing', async () => {
    const file = path.join(dir, 'setup.json');
    await writeFile(
      file,
      JSON.stringify({
        suppliers: [{ code: supplier, status: 'Ongoing', document_root: `imports/${supplier}`, send_emails: false }],
        organisations: [{ name: org, suppliers: [supplier] }],
        accounts: [
          { import_supplier: supplier, external_account_number: 'EXT-1', state: 'staged' },
          {
            import_supplier: supplier,
            external_account_number: 'EXT-3',
            state: 'imported',
            platform_account_number: `A-C${s}`,
          },
        ],
      }),
    );

    const first = await admin(['apply', file]);
    const second = await admin(['apply', file]);

    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.json.organisations).toEqual([{ name: org, id: expect.any(Number), api_key: expect.any(String) }]);
    expect(
      first.json.accounts.map((a: { platform_account_number: string | null }) => a.platform_account_number),
    ).toEqual([null, `A-C${s}`]);
    expect(second.code).toBe(0);
    expect(second.json.organisations).toEqual([{ name: org, id: first.json.organisations[0].id }]);
    const stored = await app.db.prisma.apiKey.findMany({ where: { organisation: { name: org } } });
    expect(stored.map((k) => k.hash)).toEqual([digest(first.json.organisations[0].api_key)]);
  });

  it('exits 1 with the failing path on stderr and nothing on stdout for an invalid file, and writes nothing', async () => {
    const file = path.join(dir, 'invalid.json');
    const newSupplier = `CLI_BAD_${s}`;
    await writeFile(
      file,
      JSON.stringify({
        suppliers: [{ code: newSupplier, document_root: `imports/${newSupplier}` }],
        accounts: [
          { import_supplier: newSupplier, external_account_number: 'EXT-1', state: 'staged' },
          { import_supplier: newSupplier, external_account_number: 'EXT-2', state: 'done' },
        ],
      }),
    );
    const notJson = path.join(dir, 'not.json');
    await writeFile(notJson, '{"suppliers": [');

    const [invalid, broken] = await Promise.all([admin(['apply', file]), admin(['apply', notJson])]);

    expect(invalid).toMatchObject({ code: 1, stdout: '' });
    expect(invalid.stderr).toMatch(/accounts\.1\.state: .*\[invalid_choice\]/);
    expect(broken).toMatchObject({ code: 1, stdout: '' });
    expect(broken.stderr).toContain(notJson);
    expect(broken.stderr).toContain('[parse_error]');
    expect(await app.db.prisma.importSupplier.count({ where: { code: newSupplier } })).toBe(0);
  });

  it('exits 2 with the usage on stderr for an unknown command or a missing argument, before touching the database', async () => {
    const [unknown, missing] = await Promise.all([
      admin(['suppliers', 'delete', 'X'], 'postgresql://nobody@127.0.0.1:1/none'),
      admin(['suppliers', 'set-status', supplier], 'postgresql://nobody@127.0.0.1:1/none'),
    ]);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toContain('unknown command');
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toContain('usage: admin suppliers set-status <code> <Ongoing|Paused|Complete>');
  });

  it('creates and configures a supplier, refusing a bad status with the field named', async () => {
    const code = `CLI_S_${s}`;
    const created = await admin(['suppliers', 'create', code, '--document-root', `imports/${code}`, '--send-emails']);
    const [paused, bad] = await Promise.all([
      admin(['suppliers', 'set-status', code, 'Paused']),
      admin(['suppliers', 'set-status', code, 'Stopped']),
    ]);

    expect(created.json).toMatchObject({
      code,
      status: 'Ongoing',
      document_root: `imports/${code}`,
      send_emails: true,
    });
    expect(paused.json).toMatchObject({ code, status: 'Paused' });
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/status: .*\[invalid_choice\]/);
    expect(await app.db.prisma.importSupplier.findUnique({ where: { code } })).toMatchObject({
      status: 'Paused',
      sendEmails: true,
    });
  });

  it('imports and shows an account, and refuses to stage it again', async () => {
    const imported = await admin([
      'accounts', 'import', supplier, 'EXT-7',
      '--platform-account-number', `A-I${s}`,
      '--created-at', '2026-01-15T09:30:00Z',
      '--open-statement-from', '2026-11-01',
    ]); // prettier-ignore
    const [shown, restaged] = await Promise.all([
      admin(['accounts', 'show', supplier, 'EXT-7']),
      admin(['accounts', 'stage', supplier, 'EXT-7']),
    ]);

    expect(imported.code).toBe(0);
    expect(shown.json).toEqual({
      import_supplier: supplier,
      external_account_number: 'EXT-7',
      state: 'imported',
      staged_at: expect.any(String),
      platform_account_number: `A-I${s}`,
      account_created_at: '2026-01-15T09:30:00Z',
      statement_periods: [{ starts_on: '2026-11-01', ends_on: null, is_open: true }],
      counts: { notes: 0, transactions: 0, historical_statements: 0, payment_instructions: 0 },
    });
    expect(restaged).toMatchObject({ code: 1, stdout: '' });
    expect(restaged.stderr).toContain('[account_already_imported]');
  });

  it('issues a key shown once, lists keys by prefix only, and after revoke the key and its sessions are refused', async () => {
    const name = `cli-keys-${s}`;
    const created = await admin(['organisations', 'create', name, '--supplier', supplier]);
    const apiKey = created.json.api_key as string;
    const [signedIn, listed] = await Promise.all([
      obtainToken(app.baseUrl, { APIKey: apiKey }),
      admin(['api-keys', 'list', '--organisation', name]),
    ]);
    expect(signedIn.body.data.obtainToken.token).toEqual(expect.any(String));
    expect(listed.stdout).not.toContain(apiKey);
    expect(listed.json).toEqual([
      {
        id: created.json.api_key_id,
        organisation: name,
        prefix: apiKey.slice(0, 8),
        label: '',
        created_at: expect.any(String),
        revoked_at: null,
      },
    ]);

    const revoked = await admin(['api-keys', 'revoke', String(created.json.api_key_id)]);
    expect(revoked.code).toBe(0);
    expect(revoked.json).toMatchObject({
      id: created.json.api_key_id,
      revoked_at: expect.any(String),
      revoked_refresh_tokens: 1,
    });

    const withKey = await obtainToken(app.baseUrl, { APIKey: apiKey });
    expect(withKey.body.errors[0].extensions.code).toBe('invalid_api_key');
    const withRefresh = await obtainToken(app.baseUrl, { refreshToken: signedIn.body.data.obtainToken.refreshToken });
    expect(withRefresh.body.errors[0].extensions.code).toBe('invalid_refresh_token');
  });

  it('streams an NDJSON file with a progress line per chunk; killed half-way, a re-run skips what was committed and finishes', async () => {
    const streamed = `STREAM_${s}`;
    expect((await admin(['suppliers', 'create', streamed, '--document-root', `imports/${streamed}`])).code).toBe(0);
    const lines = Array.from({ length: 20_000 }, (_, i) =>
      JSON.stringify({
        import_supplier: streamed,
        external_account_number: `S-${String(i).padStart(5, '0')}`,
        state: 'imported',
      }),
    );
    const file = path.join(dir, 'accounts.ndjson');
    await writeFile(file, `${lines.join('\n')}\n`);
    const count = () => app.db.prisma.account.count({ where: { process: { supplierCode: streamed } } });

    // Killed once its first chunk is committed (its first progress line).
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'apply', file], {
      cwd: path.join(__dirname, '../..'),
      env: { ...process.env, DATABASE_URL: testDatabaseUrl },
    });
    const firstProgress = await new Promise<string>((resolve) =>
      child.stderr.once('data', (chunk: Buffer) => resolve(chunk.toString())),
    );
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));
    expect(firstProgress).toMatch(/^admin: committed to line 2000: 2000 accounts \(2000 created/);
    const committed = await count();
    expect(committed).toBeGreaterThanOrEqual(2_000);
    expect(committed).toBeLessThan(20_000);

    const rerun = await admin(['apply', file]);
    expect(rerun.code).toBe(0);
    expect(rerun.json).toMatchObject({ accounts: 20_000, unchanged: committed, created: 20_000 - committed });
    expect(rerun.stderr).toContain(`skipped ${committed} accounts already as the file describes them`);
    expect(await count()).toBe(20_000);
  });

  it('stages the accounts of a CSV file with `accounts stage --file`, and refuses arguments beside --file', async () => {
    const staged = `STAGE_${s}`;
    expect((await admin(['suppliers', 'create', staged, '--document-root', `imports/${staged}`])).code).toBe(0);
    const file = path.join(dir, 'staged.csv');
    await writeFile(file, `import_supplier,external_account_number\n${staged},C-1\n${staged},"C-2, quoted"\n`);

    const [run, both] = await Promise.all([
      admin(['accounts', 'stage', '--file', file]),
      admin(['accounts', 'stage', staged, 'C-3', '--file', file], 'postgresql://nobody@127.0.0.1:1/none'),
    ]);

    expect(run).toMatchObject({ code: 0, json: { format: 'csv', accounts: 2, created: 2 } });
    // A decimal as written, not float noise (0.123 rather than 0.12345678901234).
    expect(run.stdout).toMatch(/"seconds": \d+(\.\d{1,3})?,?\n/);
    expect(run.stderr).toMatch(/^admin: committed to line 3: 2 accounts/);
    const rows = await app.db.prisma.accountImportProcess.findMany({
      where: { supplierCode: staged },
      orderBy: { externalAccountNumber: 'asc' },
    });
    expect(rows.map((r) => [r.externalAccountNumber, r.state])).toEqual([
      ['C-1', 'STAGED'],
      ['C-2, quoted', 'STAGED'],
    ]);
    expect(both).toMatchObject({ code: 2, stdout: '' });
    expect(both.stderr).toContain('expected no arguments with --file');
  });

  it('works on a database that does not exist yet, migrating it first', async () => {
    const name = `data_import_test_cli_${s.toLowerCase()}`;
    const url = new URL(testDatabaseUrl);
    url.pathname = `/${name}`;
    try {
      const run = await admin(['suppliers', 'list'], url.toString());
      expect(run).toMatchObject({ code: 0, stderr: '', json: [] });
    } finally {
      url.pathname = '/postgres';
      const client = new Client({ connectionString: url.toString() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    }
  });
});
