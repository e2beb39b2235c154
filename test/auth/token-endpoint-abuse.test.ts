import { SignJWT } from 'jose';
import { createApiKey, revokeApiKey } from '../../shared/admin/organisations.use-cases';
import { createTokenSigner } from '../../shared/auth/access-token';
import { obtainTokenWithApiKey, obtainTokenWithRefreshToken, type AuthDeps } from '../../shared/auth/auth.use-cases';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { until } from '../helpers/until';

const codesOf = (res: { body: any }): string[] => (res.body.errors ?? []).map((e: any) => e.extensions?.code); // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the token endpoint against abuse', () => {
  let app: TestApp;
  let tenant: Tenant;
  let organisation: string;
  let organisationId: number;

  beforeAll(async () => {
    app = await startTestApp({ TOKEN_RATE_LIMIT_PER_MINUTE: '1000' });
    tenant = await createTenant(app);
    organisation = `org-${tenant.supplier.replace('SUPPLIER_', '')}`;
    organisationId = tenant.report.organisations[0]!.id;
  });
  afterAll(() => app.close());

  const graphql = (query: string, variables?: unknown) =>
    request(app.baseUrl, 'POST', '/v1/graphql/', { body: { query, variables } });
  const refreshTokenCount = () => app.db.prisma.refreshToken.count({ where: { organisationId } });

  it('refuses a document calling obtainToken more than once, through aliases or fragments, and tries none of them', async () => {
    const before = await refreshTokenCount();
    const aliases = (n: number) =>
      Array.from({ length: n }, (_, i) => `a${i}: obtainToken(input: {APIKey: $k}) { token }`).join(' ');
    const twoHundred = await graphql(`mutation($k: String) { ${aliases(200)} }`, { k: tenant.apiKey });
    expect(codesOf(twoHundred)).toEqual(['document_too_large']);
    const viaFragments = `mutation($k: String) { ...A ...B }
      fragment A on Mutation { one: obtainToken(input: {APIKey: $k}) { token } }
      fragment B on Mutation { two: obtainToken(input: {APIKey: $k}) { token } }`;
    for (const query of [`mutation($k: String) { ${aliases(10)} }`, viaFragments]) {
      const res = await graphql(query, { k: tenant.apiKey });
      expect(res.status).toBe(200);
      expect(codesOf(res)).toContain('too_many_token_requests');
      expect(res.body.data).toBeUndefined();
    }
    expect(await refreshTokenCount()).toBe(before);
    const single = await graphql('mutation($k: String) { obtainToken(input: {APIKey: $k}) { token } }', {
      k: tenant.apiKey,
    });
    expect(single.body.data.obtainToken.token).toEqual(expect.any(String));
  });

  it('refuses an oversized document before parsing it, and a deeply nested one', async () => {
    const huge = `mutation { obtainToken(input: {APIKey: "${'k'.repeat(5000)}"}) { token } }`;
    expect(codesOf(await graphql(huge))).toEqual(['document_too_large']);
    const manyTokens = `query { ${'ping '.repeat(600)} }`;
    expect(codesOf(await graphql(manyTokens))).toEqual(['document_too_large']);
    const deep = `query { ${'a { '.repeat(20)}b${' }'.repeat(20)} }`;
    expect(codesOf(await graphql(deep))).toContain('document_too_deep');
  });

  it('answers an over-long API key or refresh token like an unknown one', async () => {
    const longKey = await graphql('mutation($k: String) { obtainToken(input: {APIKey: $k}) { token } }', {
      k: tenant.apiKey + 'x'.repeat(4_000),
    });
    expect(codesOf(longKey)).toEqual(['invalid_api_key']);
    const longRefresh = await graphql('mutation($r: String) { obtainToken(input: {refreshToken: $r}) { token } }', {
      r: 'r'.repeat(4_000),
    });
    expect(codesOf(longRefresh)).toEqual(['invalid_refresh_token']);
  });

  it('refuses a correctly signed token that has no exp', async () => {
    const forever = await new SignJWT({ org: organisationId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(`organisation:${organisationId}`)
      .setIssuer('data-import-service')
      .setAudience('data-import-api')
      .setIssuedAt()
      .sign(new TextEncoder().encode(app.config.TOKEN_SECRET));
    const res = await request(app.baseUrl, 'GET', `/v1/data-import/all-account-import-processes/${tenant.supplier}/`, {
      token: forever,
    });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('authentication_failed');
  });

  it('ends every refresh family of a revoked key atomically: nothing issued after the revocation commits lives', async () => {
    const deps: AuthDeps = {
      db: app.db,
      signer: createTokenSigner(app.config.TOKEN_SECRET, 3600),
      refreshTtlSeconds: 3600,
    };
    for (let round = 0; round < 4; round++) {
      const key = await createApiKey(app.db, { organisation });
      let revokedAt = Infinity;
      const issuedAfterRevocation: string[] = [];
      const handedOut: string[] = [];
      // Six clients refresh a family each, two sign in with the key again and again. Every family starts
      // before the race, so a revocation that comes early still finds them all.
      const kinds = [true, true, true, true, true, true, false, false];
      const families = await Promise.all(
        kinds.map(async (refreshing) =>
          refreshing ? (await obtainTokenWithApiKey(deps, key.api_key)).refreshToken : undefined,
        ),
      );
      // Each client keeps going until it has been refused three times after the revocation returned.
      const client = async (refreshing: boolean, first: string | undefined) => {
        let refresh = first;
        for (let refusals = 0; refusals < 3;) {
          const started = Date.now();
          try {
            const tokens = refresh
              ? await obtainTokenWithRefreshToken(deps, refresh)
              : await obtainTokenWithApiKey(deps, key.api_key);
            handedOut.push(tokens.refreshToken);
            if (refreshing) refresh = tokens.refreshToken;
            if (started > revokedAt) issuedAfterRevocation.push(tokens.refreshToken);
          } catch {
            if (Date.now() > revokedAt) refusals += 1;
          }
        }
      };
      const clients = kinds.map((refreshing, i) => client(refreshing, families[i]));
      // Revoke mid-race, later in each round: once the clients have been handed 8, 16, 24, 32 tokens.
      await until('the clients to be under way', () => (handedOut.length >= 8 * (round + 1) ? true : undefined));
      const result = await revokeApiKey(app.db, { id: key.id });
      revokedAt = Date.now();
      await Promise.all(clients);
      expect(result.revoked_at).not.toBeNull();
      expect(issuedAfterRevocation).toEqual([]);
      const live = await app.db.prisma.refreshToken.count({
        where: { apiKeyId: key.id, revokedAt: null, usedAt: null },
      });
      expect(live).toBe(0);
      const lastHandedOut = handedOut.slice(-8);
      for (const token of lastHandedOut) {
        await expect(obtainTokenWithRefreshToken(deps, token)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
      }
    }
  });

  it("revoking one key leaves the families of the organisation's other keys alive", async () => {
    const deps: AuthDeps = {
      db: app.db,
      signer: createTokenSigner(app.config.TOKEN_SECRET, 3600),
      refreshTtlSeconds: 3600,
    };
    const doomed = await createApiKey(app.db, { organisation });
    const kept = await obtainTokenWithApiKey(deps, tenant.apiKey);
    const lost = await obtainTokenWithApiKey(deps, doomed.api_key);
    await revokeApiKey(app.db, { id: doomed.id });
    await expect(obtainTokenWithRefreshToken(deps, lost.refreshToken)).rejects.toMatchObject({
      code: 'invalid_refresh_token',
    });
    expect((await obtainTokenWithRefreshToken(deps, kept.refreshToken)).token).toEqual(expect.any(String));
  });
});
