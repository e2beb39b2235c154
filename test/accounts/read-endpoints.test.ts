import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';

describe('status and list endpoints', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await startTestApp();
    tenant = await createTenant(app, {
      accounts: [
        { external_account_number: 'EXT-2', state: 'in_progress' },
        { external_account_number: 'EXT-1', state: 'staged' },
        {
          external_account_number: 'EXT-3',
          state: 'imported',
          platform_account_number: `A-${tenant_suffix()}`,
          account_created_at: '2026-01-15T09:30:00.123+01:00',
        },
        { external_account_number: 'EXT-4', state: 'failed' },
      ],
    });
  });
  afterAll(() => app.close());

  function tenant_suffix(): string {
    return Math.random().toString(16).slice(2, 10).toUpperCase();
  }

  const status = (number: string, supplier = tenant.supplier, token = tenant.token) =>
    request(app.baseUrl, 'GET', `/v1/data-import/account-transfer-status/${supplier}/${number}/`, { token });

  it('reports a staged account as UNKNOWN with an empty platform account number', async () => {
    const res = await status('EXT-1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'UNKNOWN', platform_account_number: '' });
  });

  it('reports an account being migrated as IN_PROGRESS', async () => {
    expect((await status('EXT-2')).body).toEqual({ status: 'IN_PROGRESS', platform_account_number: '' });
  });

  it('reports an imported account as COMPLETED with its platform account number', async () => {
    const res = await status('EXT-3');
    const expected = tenant.report.accounts.find((a) => a.external_account_number === 'EXT-3')?.platform_account_number;
    expect(res.body).toEqual({ status: 'COMPLETED', platform_account_number: expected });
  });

  it('reports a failed attempt as UNKNOWN', async () => {
    expect((await status('EXT-4')).body).toEqual({ status: 'UNKNOWN', platform_account_number: '' });
  });

  it('answers 404 with a code when no import process exists', async () => {
    const res = await status('NOPE');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'account_not_found' });
  });

  it('lists every process in a stable order with nulls while pending', async () => {
    const res = await request(app.baseUrl, 'GET', `/v1/data-import/all-account-import-processes/${tenant.supplier}/`, {
      token: tenant.token,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const imported = tenant.report.accounts.find((a) => a.external_account_number === 'EXT-3');
    expect(res.body).toEqual([
      { external_account_number: 'EXT-1', platform_account_number: null, account_created_at: null },
      { external_account_number: 'EXT-2', platform_account_number: null, account_created_at: null },
      {
        external_account_number: 'EXT-3',
        platform_account_number: imported?.platform_account_number,
        account_created_at: '2026-01-15T08:30:00Z',
      },
      { external_account_number: 'EXT-4', platform_account_number: null, account_created_at: null },
    ]);
  });

  it('lists pending processes (staged, in progress, failed) and imported ones separately', async () => {
    const pending = await request(
      app.baseUrl,
      'GET',
      `/v1/data-import/pending-account-import-processes/${tenant.supplier}/`,
      {
        token: tenant.token,
      },
    );
    expect(pending.body.map((r: { external_account_number: string }) => r.external_account_number)).toEqual([
      'EXT-1',
      'EXT-2',
      'EXT-4',
    ]);
    const imported = await request(
      app.baseUrl,
      'GET',
      `/v1/data-import/imported-account-import-processes/${tenant.supplier}/`,
      { token: tenant.token },
    );
    expect(imported.body).toHaveLength(1);
    expect(imported.body[0].external_account_number).toBe('EXT-3');
  });

  it('answers [] for a known supplier with no accounts', async () => {
    const empty = await createTenant(app);
    const res = await request(app.baseUrl, 'GET', `/v1/data-import/all-account-import-processes/${empty.supplier}/`, {
      token: empty.token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('answers 404 import_supplier_not_found for an unknown supplier', async () => {
    const res = await request(app.baseUrl, 'GET', '/v1/data-import/pending-account-import-processes/NO_SUCH/', {
      token: tenant.token,
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('import_supplier_not_found');
  });

  it("hides another organisation's supplier and accounts exactly as if they did not exist", async () => {
    const other = await createTenant(app);
    const list = await request(app.baseUrl, 'GET', `/v1/data-import/all-account-import-processes/${tenant.supplier}/`, {
      token: other.token,
    });
    expect(list.status).toBe(404);
    expect(list.body.code).toBe('import_supplier_not_found');
    const one = await status('EXT-3', tenant.supplier, other.token);
    const missing = await status('NOPE', tenant.supplier, tenant.token);
    expect(one.status).toBe(404);
    expect(one.body).toEqual(missing.body);
  });
});
