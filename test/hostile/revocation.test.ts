// The emergency stop: revoking an API key, or disabling an organisation, refuses the tokens already
// issued (401, the usual body) within seconds on every API process, including tokens each process has
// cached as verified, and no new token or refresh is given. Two API processes share PostgreSQL and
// Redis here, as replicas do.
import { startApi, type RunningApi } from '../../api/server';
import { createApiKey, revokeApiKey } from '../../shared/admin/organisations.use-cases';
import { runAdmin } from '../helpers/admin-cli';
import { createTenant, obtainToken, request, startTestApp, type Json, type Tenant, type TestApp } from '../helpers/app';
import { until } from '../helpers/until';

describe('revoking access while tokens are in use', () => {
  let app: TestApp;
  let replica: RunningApi;
  let bases: string[];

  beforeAll(async () => {
    app = await startTestApp({ TOKEN_RATE_LIMIT_PER_MINUTE: '1000' });
    replica = await startApi({ config: app.config, db: app.db, logger: app.logger });
    bases = [app.baseUrl, `http://127.0.0.1:${replica.port}`];
  });
  afterAll(async () => {
    await replica.stop();
    await app.close();
  });

  const organisation = (t: Tenant) => `org-${t.supplier.replace('SUPPLIER_', '')}`;
  const issued = (res: Json) => res.body.data.obtainToken as { token: string; refreshToken: string };
  const errorOf = (res: Json) => res.body.errors?.[0]?.extensions?.code as string | undefined;
  const list = (base: string, t: Tenant, token: string) =>
    request(base, 'GET', `/v1/data-import/all-account-import-processes/${t.supplier}/`, { token });
  /** Polls every API process until it answers `status`; returns the answers. */
  const untilEvery = (what: string, status: number, t: Tenant, token: string) =>
    Promise.all(
      bases.map((base) =>
        until(`${what} on ${base}`, async () => {
          const res = await list(base, t, token);
          return res.status === status ? res : undefined;
        }),
      ),
    );

  it("refuses a revoked key's access tokens on every API process within seconds, and its refresh token", async () => {
    const tenant = await createTenant(app);
    const key = await createApiKey(app.db, { organisation: organisation(tenant) });
    const signedIn = issued(await obtainToken(app.baseUrl, { APIKey: key.api_key }));
    // Both processes verify (and cache) the token first.
    for (const base of bases) expect((await list(base, tenant, signedIn.token)).status).toBe(200);

    await revokeApiKey(app.db, { id: key.id });

    const refused = await untilEvery('the revoked token refused', 401, tenant, signedIn.token);
    for (const res of refused) {
      expect(res.body).toEqual({ detail: expect.any(String), code: 'authentication_failed' });
      expect(res.headers.get('www-authenticate')).toBe('Token');
    }
    expect(errorOf(await obtainToken(app.baseUrl, { refreshToken: signedIn.refreshToken }))).toBe(
      'invalid_refresh_token',
    );
    // The organisation's other key was not revoked: its token still works everywhere.
    for (const base of bases) expect((await list(base, tenant, tenant.token)).status).toBe(200);
  });

  it('refuses a revoked key on writes too: nothing is stored', async () => {
    const tenant = await createTenant(app, {
      accounts: [{ external_account_number: 'REV-1', state: 'imported', open_statement_from: '2019-10-01' }],
    });
    const key = await createApiKey(app.db, { organisation: organisation(tenant) });
    const { token } = issued(await obtainToken(app.baseUrl, { APIKey: key.api_key }));
    await revokeApiKey(app.db, { id: key.id });
    await untilEvery('the revoked token refused', 401, tenant, token);

    const note = { body: 'after revocation', created_at: '2020-01-01T00:00:00Z', is_pinned: false };
    const write = await request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', {
      token,
      body: { import_supplier: tenant.supplier, external_account_number: 'REV-1', notes: [note] },
    });

    expect([write.status, write.body.code]).toEqual([401, 'authentication_failed']);
    expect(await app.db.prisma.note.count({ where: { body: 'after revocation' } })).toBe(0);
  });

  it('disables and enables an organisation from the admin CLI: its tokens, sign-ins and refreshes stop, then work again', async () => {
    const tenant = await createTenant(app);
    const bystander = await createTenant(app);
    const signedIn = issued(await obtainToken(app.baseUrl, { APIKey: tenant.apiKey }));
    for (const base of bases) expect((await list(base, tenant, signedIn.token)).status).toBe(200);

    const disabled = await runAdmin(['organisations', 'disable', organisation(tenant)]);

    expect(disabled).toMatchObject({ code: 0, stderr: '' });
    expect(disabled.json).toMatchObject({ name: organisation(tenant), disabled_at: expect.any(String) });
    await untilEvery('the disabled organisation refused', 401, tenant, signedIn.token);
    await untilEvery('the tenant signed in at setup refused', 401, tenant, tenant.token);
    expect(errorOf(await obtainToken(app.baseUrl, { APIKey: tenant.apiKey }))).toBe('invalid_api_key');
    expect(errorOf(await obtainToken(app.baseUrl, { refreshToken: signedIn.refreshToken }))).toBe(
      'invalid_refresh_token',
    );
    for (const base of bases) expect((await list(base, bystander, bystander.token)).status).toBe(200);

    const enabled = await runAdmin(['organisations', 'enable', organisation(tenant)]);

    expect(enabled).toMatchObject({ code: 0, json: { name: organisation(tenant), disabled_at: null } });
    await untilEvery('the enabled organisation served', 200, tenant, signedIn.token);
    expect(errorOf(await obtainToken(app.baseUrl, { APIKey: tenant.apiKey }))).toBeUndefined();
    // The refresh refused while disabled was not spent: it works now.
    expect(errorOf(await obtainToken(app.baseUrl, { refreshToken: signedIn.refreshToken }))).toBeUndefined();
  });

  it('answers an unknown organisation with exit code 1 and a stable code', async () => {
    const run = await runAdmin(['organisations', 'disable', 'no-such-organisation']);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain('[organisation_not_found]');
  });
});
