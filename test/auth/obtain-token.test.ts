import { decodeJwt } from 'jose';
import { digest } from '../../shared/auth/secrets';
import { createApiKey, revokeApiKey } from '../../shared/admin/organisations.use-cases';
import { createTenant, obtainToken, request, startTestApp, type Json, type Tenant, type TestApp } from '../helpers/app';

const DAY_SECONDS = 24 * 3600;

describe('obtainToken', () => {
  let app: TestApp;
  let tenant: Tenant;
  let organisationId: number;
  // The app's clock: tests move it to issue tokens "in the past".
  let clockOffsetMs = 0;

  beforeAll(async () => {
    app = await startTestApp({}, { now: () => new Date(Date.now() + clockOffsetMs) });
    tenant = await createTenant(app);
    organisationId = tenant.report.organisations[0]!.id;
  });
  afterEach(() => {
    clockOffsetMs = 0;
  });
  afterAll(() => app.close());

  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const issued = (res: Json) =>
    res.body.data.obtainToken as {
      token: string;
      payload: { iat: number; exp: number; org: number };
      refreshToken: string;
      refreshExpiresIn: number;
    };
  const errorOf = (res: Json) => res.body.errors?.[0]?.extensions?.code as string | undefined;
  const refreshRow = (refreshToken: string) =>
    app.db.prisma.refreshToken.findUnique({ where: { hash: digest(refreshToken) } });
  const listAccounts = (token: string) =>
    request(app.baseUrl, 'GET', `/v1/data-import/all-account-import-processes/${tenant.supplier}/`, { token });

  it('trades an API key for a 60-minute token with its claims, and a 7-day refresh token stored only as a digest', async () => {
    const before = nowSeconds();
    const res = await obtainToken(app.baseUrl, { APIKey: tenant.apiKey });
    const after = nowSeconds();

    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const t = issued(res);
    expect(decodeJwt(t.token)).toEqual(t.payload);
    expect(t.payload).toMatchObject({ org: organisationId, sub: `organisation:${organisationId}` });
    expect(t.payload.iat).toBeGreaterThanOrEqual(before);
    expect(t.payload.iat).toBeLessThanOrEqual(after);
    expect(t.payload.exp).toBe(t.payload.iat + 3600);
    expect(Number.isInteger(t.refreshExpiresIn)).toBe(true);
    expect(t.refreshExpiresIn).toBeGreaterThanOrEqual(before + 7 * DAY_SECONDS);
    expect(t.refreshExpiresIn).toBeLessThanOrEqual(after + 7 * DAY_SECONDS);

    const row = await refreshRow(t.refreshToken);
    expect(row).toMatchObject({ organisationId, usedAt: null, revokedAt: null });
    expect(row!.expiresAt.getTime()).toBe(t.refreshExpiresIn * 1000);
    expect(await app.db.prisma.refreshToken.count({ where: { hash: t.refreshToken } })).toBe(0);
    expect((await listAccounts(t.token)).status).toBe(200);
  });

  it('rotates the refresh token: the new pair works and the old refresh token is spent', async () => {
    const first = issued(await obtainToken(app.baseUrl, { APIKey: tenant.apiKey }));
    const res = await obtainToken(app.baseUrl, { refreshToken: first.refreshToken });

    expect(res.body.errors).toBeUndefined();
    const second = issued(res);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.payload.org).toBe(organisationId);
    expect(second.payload.exp).toBe(second.payload.iat + 3600);
    expect((await listAccounts(second.token)).status).toBe(200);
    const [oldRow, newRow] = await Promise.all([refreshRow(first.refreshToken), refreshRow(second.refreshToken)]);
    expect(oldRow!.usedAt).not.toBeNull();
    expect(newRow).toMatchObject({ family: oldRow!.family, usedAt: null, revokedAt: null });
  });

  it('answers refresh_token_reused to a spent refresh token and revokes every token of its family', async () => {
    const first = issued(await obtainToken(app.baseUrl, { APIKey: tenant.apiKey }));
    const second = issued(await obtainToken(app.baseUrl, { refreshToken: first.refreshToken }));

    const reuse = await obtainToken(app.baseUrl, { refreshToken: first.refreshToken });
    expect(reuse.status).toBe(200);
    expect(reuse.body.data?.obtainToken ?? null).toBeNull();
    expect(errorOf(reuse)).toBe('refresh_token_reused');

    const newer = await obtainToken(app.baseUrl, { refreshToken: second.refreshToken });
    expect(errorOf(newer)).toBe('invalid_refresh_token');
    const family = (await refreshRow(first.refreshToken))!.family;
    const rows = await app.db.prisma.refreshToken.findMany({ where: { family } });
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.revokedAt !== null)).toBe(true);
  });

  it('lets only one of two simultaneous refreshes with one token win, and the winner is revoked with its family', async () => {
    for (let round = 0; round < 5; round += 1) {
      const start = issued(await obtainToken(app.baseUrl, { APIKey: tenant.apiKey }));
      const answers = await Promise.all(
        [1, 2].map(() => obtainToken(app.baseUrl, { refreshToken: start.refreshToken })),
      );

      const winners = answers.filter((a) => !a.body.errors);
      expect(winners).toHaveLength(1);
      expect(answers.map(errorOf).filter(Boolean)).toEqual(['refresh_token_reused']);
      const afterwards = await obtainToken(app.baseUrl, { refreshToken: issued(winners[0]!).refreshToken });
      expect(errorOf(afterwards)).toBe('invalid_refresh_token');
    }
  });

  it('answers refresh_token_expired to a refresh token past its expiry, and leaves it unspent', async () => {
    clockOffsetMs = -8 * DAY_SECONDS * 1000;
    const old = issued(await obtainToken(app.baseUrl, { APIKey: tenant.apiKey }));
    expect(old.refreshExpiresIn).toBeLessThan(nowSeconds());
    clockOffsetMs = 0;

    const res = await obtainToken(app.baseUrl, { refreshToken: old.refreshToken });

    expect(errorOf(res)).toBe('refresh_token_expired');
    expect(await refreshRow(old.refreshToken)).toMatchObject({ usedAt: null, revokedAt: null });
  });

  it.each([
    ['both inputs', { APIKey: 'whatever-key', refreshToken: 'whatever-token' }],
    ['neither input', {}],
  ])('answers invalid_input when given %s', async (_label, input) => {
    const res = await obtainToken(app.baseUrl, input);
    expect(res.status).toBe(200);
    expect(errorOf(res)).toBe('invalid_input');
    expect(res.body.data?.obtainToken ?? null).toBeNull();
  });

  it('answers invalid_refresh_token to a refresh token it never issued', async () => {
    expect(errorOf(await obtainToken(app.baseUrl, { refreshToken: 'never-issued' }))).toBe('invalid_refresh_token');
  });

  it('answers a revoked API key exactly as a key that never existed (no oracle)', async () => {
    const key = await createApiKey(app.db, { organisation: `org-${tenant.supplier.replace('SUPPLIER_', '')}` });
    expect(issued(await obtainToken(app.baseUrl, { APIKey: key.api_key })).payload.org).toBe(organisationId);
    await revokeApiKey(app.db, { id: key.id });
    const tokensBefore = await app.db.prisma.refreshToken.count({ where: { organisationId } });

    const revoked = await obtainToken(app.baseUrl, { APIKey: key.api_key });
    const unknown = await obtainToken(app.baseUrl, { APIKey: `dik_${'n'.repeat(40)}` });

    expect(errorOf(revoked)).toBe('invalid_api_key');
    expect(revoked.status).toBe(unknown.status);
    expect(revoked.body).toEqual(unknown.body);
    expect(await app.db.prisma.refreshToken.count({ where: { organisationId } })).toBe(tokensBefore);
  });
});
