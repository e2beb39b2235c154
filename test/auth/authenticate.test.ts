import { SignJWT } from 'jose';
import { createTokenSigner } from '../../shared/auth/access-token';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('Authorization header on data-import endpoints', () => {
  let app: TestApp;
  let tenant: Tenant;
  let organisationId: number;
  let apiKeyId: number;

  beforeAll(async () => {
    app = await startTestApp();
    tenant = await createTenant(app, { accounts: [{ external_account_number: 'EXT-1', state: 'staged' }] });
    organisationId = tenant.report.organisations[0]!.id;
    apiKeyId = (JSON.parse(Buffer.from(tenant.token.split('.')[1]!, 'base64url').toString()) as { key: number }).key;
  });
  afterAll(() => app.close());

  const list = (authorization?: string) =>
    request(app.baseUrl, 'GET', `/v1/data-import/all-account-import-processes/${tenant.supplier}/`, {
      headers: authorization === undefined ? {} : { authorization },
    });

  /** A token as the service signs them, with claims and key overridable. */
  function sign(claims: Record<string, unknown>, secret = app.config.TOKEN_SECRET) {
    const nowSeconds = Math.floor(Date.now() / 1000);
    return new SignJWT({ org: organisationId, key: apiKeyId, ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(`organisation:${organisationId}`)
      .setIssuer('data-import-service')
      .setAudience('data-import-api')
      .setIssuedAt(nowSeconds - 120)
      .setExpirationTime(typeof claims.exp === 'number' ? claims.exp : nowSeconds + 600)
      .sign(new TextEncoder().encode(secret));
  }

  it.each([
    ['the documented "Token <jwt>"', (t: string) => `Token ${t}`],
    ['"Bearer <jwt>"', (t: string) => `Bearer ${t}`],
    ['the bare "<jwt>"', (t: string) => t],
  ])('accepts %s', async (_form, header) => {
    const res = await list(header(tenant.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { external_account_number: 'EXT-1', platform_account_number: null, account_created_at: null },
    ]);
  });

  it('answers 401 not_authenticated when the header is missing', async () => {
    const res = await list();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'not_authenticated' });
  });

  it('answers 401 token_expired to a correctly signed token past its exp', async () => {
    const expired = await sign({ exp: Math.floor(Date.now() / 1000) - 60 });
    const res = await list(`Token ${expired}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'token_expired' });
  });

  it('answers 401 token_expired to a token the service itself issued with a clock an hour behind', async () => {
    const signer = createTokenSigner(app.config.TOKEN_SECRET, app.config.TOKEN_TTL_SECONDS);
    const { token } = await signer.sign(
      { organisationId, apiKeyId },
      Math.floor(Date.now() / 1000) - app.config.TOKEN_TTL_SECONDS - 1,
    );
    expect((await list(`Token ${token}`)).body.code).toBe('token_expired');
  });

  describe('answers 401 authentication_failed', () => {
    const failures: [string, () => Promise<string>][] = [
      ['to garbage', async () => 'Token not-a-jwt'],
      ['to an unknown scheme', async () => `Basic ${Buffer.from('user:pass').toString('base64')}`],
      ['to the scheme alone', async () => 'Token'],
      [
        'to a payload changed under a valid signature',
        async () => {
          const [header, , signature] = tenant.token.split('.');
          const forged = b64url({
            ...JSON.parse(Buffer.from(tenant.token.split('.')[1]!, 'base64url').toString()),
            org: organisationId + 1,
          });
          return `Token ${header}.${forged}.${signature}`;
        },
      ],
      [
        'to a changed signature',
        async () => {
          const [header, payload, signature] = tenant.token.split('.');
          const middle = Math.floor(signature!.length / 2);
          const flipped = signature![middle] === 'A' ? 'B' : 'A';
          return `Token ${header}.${payload}.${signature!.slice(0, middle)}${flipped}${signature!.slice(middle + 1)}`;
        },
      ],
      [
        'to alg "none"',
        async () => {
          const payload = tenant.token.split('.')[1];
          return `Token ${b64url({ alg: 'none', typ: 'JWT' })}.${payload}.`;
        },
      ],
      [
        'to a token signed with another secret',
        async () => `Token ${await sign({}, 'another-secret-that-is-long-enough-for-hs256')}`,
      ],
      [
        'to a token whose org claim is not an integer',
        async () => `Token ${await sign({ org: String(organisationId) })}`,
      ],
      [
        'to a token that names no API key (issued before tokens carried one: it could not be revoked)',
        async () => `Token ${await sign({ key: undefined })}`,
      ],
    ];

    it.each(failures)('%s', async (_cause, header) => {
      const res = await list(await header());
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'authentication_failed' });
    });
  });
});
