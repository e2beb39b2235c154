// Refresh-token abuse beyond test/auth/obtain-token.test.ts (rotation, reuse revoking the family, a
// single winner among simultaneous refreshes, expiry): a stolen chain outliving the revocation of its
// API key, a storm of replays of a revoked family, and one secret passed off as the other kind.
import { createApiKey, revokeApiKey } from '../../shared/admin/organisations.use-cases';
import { digest } from '../../shared/auth/secrets';
import { createTenant, obtainToken, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { until } from '../helpers/until';

describe('refresh tokens in hostile hands', () => {
  let app: TestApp;
  let tenant: Tenant;
  const organisation = () => `org-${tenant.supplier.replace('SUPPLIER_', '')}`;

  beforeAll(async () => {
    app = await startTestApp({ TOKEN_RATE_LIMIT_PER_MINUTE: '1000' });
    tenant = await createTenant(app);
  });
  afterAll(() => app.close());

  const issued = (res: { body: any }) => res.body.data.obtainToken as { token: string; refreshToken: string }; // eslint-disable-line @typescript-eslint/no-explicit-any
  const errorOf = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code as string | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('ends every refresh chain when the API key that started it is revoked (a leaked key takes its chains with it)', async () => {
    const key = await createApiKey(app.db, { organisation: organisation() });
    const first = issued(await obtainToken(app.baseUrl, { APIKey: key.api_key }));
    const rotated = issued(await obtainToken(app.baseUrl, { refreshToken: first.refreshToken }));

    await revokeApiKey(app.db, { id: key.id });

    expect(errorOf(await obtainToken(app.baseUrl, { refreshToken: rotated.refreshToken }))).toBe(
      'invalid_refresh_token',
    );
    expect(errorOf(await obtainToken(app.baseUrl, { APIKey: key.api_key }))).toBe('invalid_api_key');
    // The access tokens the chain issued go with it (test/hostile/revocation.test.ts: within seconds).
    const list = await until('the revoked chain refused', async () => {
      const res = await request(
        app.baseUrl,
        'GET',
        `/v1/data-import/all-account-import-processes/${tenant.supplier}/`,
        { token: rotated.token },
      );
      return res.status === 401 ? res : undefined;
    });
    expect(list.body.code).toBe('authentication_failed');
  });

  it('answers a storm of replays of a revoked family with errors only, storing no new refresh token', async () => {
    const first = issued(await obtainToken(app.baseUrl, { APIKey: tenant.apiKey }));
    const second = issued(await obtainToken(app.baseUrl, { refreshToken: first.refreshToken }));
    expect(errorOf(await obtainToken(app.baseUrl, { refreshToken: first.refreshToken }))).toBe('refresh_token_reused');
    const family = (await app.db.prisma.refreshToken.findUniqueOrThrow({ where: { hash: digest(first.refreshToken) } }))
      .family;
    const rowsBefore = await app.db.prisma.refreshToken.count({ where: { family } });

    const storm = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        obtainToken(app.baseUrl, { refreshToken: i % 2 ? first.refreshToken : second.refreshToken }),
      ),
    );

    expect(storm.every((r) => r.body.data?.obtainToken == null)).toBe(true);
    expect(new Set(storm.map(errorOf))).toEqual(new Set(['invalid_refresh_token']));
    expect(await app.db.prisma.refreshToken.count({ where: { family } })).toBe(rowsBefore);
  });

  it('does not take one kind of secret for the other', async () => {
    const signedIn = issued(await obtainToken(app.baseUrl, { APIKey: tenant.apiKey }));

    expect(errorOf(await obtainToken(app.baseUrl, { APIKey: signedIn.refreshToken }))).toBe('invalid_api_key');
    expect(errorOf(await obtainToken(app.baseUrl, { refreshToken: tenant.apiKey }))).toBe('invalid_refresh_token');
    expect(errorOf(await obtainToken(app.baseUrl, { refreshToken: signedIn.token }))).toBe('invalid_refresh_token');
    const asAccessToken = await request(
      app.baseUrl,
      'GET',
      `/v1/data-import/all-account-import-processes/${tenant.supplier}/`,
      {
        token: signedIn.refreshToken,
      },
    );
    expect([asAccessToken.status, asAccessToken.body.code]).toEqual([401, 'authentication_failed']);
    // The refresh token survived all that unspent.
    expect(errorOf(await obtainToken(app.baseUrl, { refreshToken: signedIn.refreshToken }))).toBeUndefined();
  });
});
