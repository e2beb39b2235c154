// The admin CLI run as the platform team runs it: a child process (test/helpers/admin-cli.ts).
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

  it('lists every command as JSON under `help`', async () => {
    const run = await admin(['help']);
    expect(run.code).toBe(0);
    const commands = (run.json.commands as { command: string }[]).map((c) => c.command.split(' <')[0]!.split(' [')[0]);
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
        'admin api-keys create',
        'admin api-keys list',
        'admin api-keys revoke',
        'admin accounts stage',
        'admin accounts mark-in-progress',
        'admin accounts import',
        'admin accounts list',
        'admin accounts show',
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
          { import_supplier: supplier, external_account_number: 'EXT-3', state: 'imported', platform_account_number: `A-C${s}` },
        ],
      }),
    );

    const first = await admin(['apply', file]);
    const second = await admin(['apply', file]);

    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.json.organisations).toEqual([{ name: org, id: expect.any(Number), api_key: expect.any(String) }]);
    expect(first.json.accounts.map((a: { platform_account_number: string | null }) => a.platform_account_number)).toEqual([null, `A-C${s}`]);
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

    expect(created.json).toMatchObject({ code, status: 'Ongoing', document_root: `imports/${code}`, send_emails: true });
    expect(paused.json).toMatchObject({ code, status: 'Paused' });
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/status: .*\[invalid_choice\]/);
    expect(await app.db.prisma.importSupplier.findUnique({ where: { code } })).toMatchObject({ status: 'Paused', sendEmails: true });
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
      { id: created.json.api_key_id, organisation: name, prefix: apiKey.slice(0, 8), label: '', created_at: expect.any(String), revoked_at: null },
    ]);

    const revoked = await admin(['api-keys', 'revoke', String(created.json.api_key_id)]);
    expect(revoked.code).toBe(0);
    expect(revoked.json).toMatchObject({ id: created.json.api_key_id, revoked_at: expect.any(String), revoked_refresh_tokens: 1 });

    const withKey = await obtainToken(app.baseUrl, { APIKey: apiKey });
    expect(withKey.body.errors[0].extensions.code).toBe('invalid_api_key');
    const withRefresh = await obtainToken(app.baseUrl, { refreshToken: signedIn.body.data.obtainToken.refreshToken });
    expect(withRefresh.body.errors[0].extensions.code).toBe('invalid_refresh_token');
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
