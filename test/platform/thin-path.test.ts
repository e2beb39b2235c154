// The write endpoints' thin path (api/thin-path.ts) answers exactly as the routers do: the same status,
// body and headers for a success and for every refusal before the handler. A path written without its
// trailing slash is not the declared one, so it still goes through the routers: the two are compared.
import { Router } from 'express';
import { createTenant, request, startTestApp, type Json, type Tenant, type TestApp } from '../helpers/app';
import { createTenantWithAccounts, importAccount } from '../notes/notes.fixture';

const NOTES = '/v1/data-import/notes/create/';
const ROUTERS = '/v1/data-import/notes/create';

/** Headers whose value differs from one answer to the next. */
const VARYING = new Set(['date', 'x-request-id', 'ratelimit', 'retry-after', 'keep-alive', 'connection']);

/** The security headers every answer of the API carries (helmet's defaults), pinned. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

const steady = (res: Json) => [...res.headers.entries()].filter(([name]) => !VARYING.has(name));
const names = (res: Json) => [...res.headers.keys()];

describe('the write endpoints’ thin path', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await startTestApp({ BODY_LIMIT_BYTES: '2048', ORG_RATE_LIMIT_PER_MINUTE: '1000' });
    tenant = await createTenantWithAccounts(app);
  });
  afterAll(() => app.close());

  const post = (path: string, opts: Parameters<typeof request>[3]) => request(app.baseUrl, 'POST', path, opts);
  const note = (number: string) => ({
    import_supplier: tenant.supplier,
    external_account_number: number,
    notes: [{ body: 'A note.' }],
  });

  it('answers a write with the pinned header set, the same as the routers', async () => {
    const [first, second] = [await importAccount(app, tenant), await importAccount(app, tenant)];
    const thin = await post(NOTES, { token: tenant.token, body: note(first.number) });
    const routers = await post(ROUTERS, { token: tenant.token, body: note(second.number) });
    expect([thin.status, routers.status]).toEqual([201, 201]);
    expect(names(thin)).toEqual(
      [
        ...Object.keys(SECURITY_HEADERS),
        'connection',
        'content-length',
        'content-type',
        'date',
        'keep-alive',
        'ratelimit',
        'ratelimit-policy',
        'x-request-id',
      ].sort(),
    );
    expect(Object.fromEntries(thin.headers.entries())).toMatchObject({
      ...SECURITY_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
      ratelimit: expect.stringMatching(/^"1000-in-1min"; r=\d+; t=\d+$/),
    });
    expect(steady(thin)).toEqual(steady(routers));
  });

  it.each([
    ['unauthenticated', { headers: { 'content-type': 'application/json' }, rawBody: '{}' }, 401],
    ['not JSON', { headers: { 'content-type': 'text/plain' }, rawBody: '{}', token: true }, 415],
    ['malformed JSON', { headers: { 'content-type': 'application/json' }, rawBody: '{"a": ', token: true }, 400],
    [
      'too large',
      { headers: { 'content-type': 'application/json' }, rawBody: `"${'x'.repeat(3000)}"`, token: true },
      413,
    ],
    ['invalid', { headers: { 'content-type': 'application/json' }, rawBody: '{}', token: true }, 400],
    [
      'an unknown query parameter',
      { headers: { 'content-type': 'application/json' }, rawBody: '{}', token: true, query: '?x=1' },
      400,
    ],
  ])('refuses a request %s with the routers’ status, body and headers', async (_what, opts, status) => {
    const { token, query = '', ...rest } = opts as typeof opts & { token?: boolean; query?: string };
    const send = (path: string) => post(path + query, { ...rest, token: token ? tenant.token : undefined });
    const [thin, routers] = [await send(NOTES), await send(ROUTERS)];
    expect([thin.status, routers.status]).toEqual([status, status]);
    expect(thin.body).toEqual(routers.body);
    expect(Object.fromEntries(thin.headers.entries())).toMatchObject(SECURITY_HEADERS);
    expect(steady(thin)).toEqual(steady(routers));
    if (status === 401) expect(thin.headers.get('www-authenticate')).toBe('Token');
  });

  it('refuses a bad %-sequence in a path parameter as the routers do, after authentication', async () => {
    const declaration = (run: string, slash = '/') => `/v1/data-import/runs/${run}/declaration${slash}`;
    const opts = { headers: { 'content-type': 'application/json' }, rawBody: '{}' };
    for (const token of [undefined, tenant.token]) {
      const [thin, routers] = [
        await post(declaration('%FF'), { ...opts, token }),
        await post(declaration('%FF', ''), { ...opts, token }),
      ];
      expect(thin.status).toBe(token ? 400 : 401);
      expect([thin.status, thin.body]).toEqual([routers.status, routers.body]);
      expect(steady(thin)).toEqual(steady(routers));
    }
  });

  it('answers a rate-limited write 429 with Retry-After and RateLimit headers, as the routers do', async () => {
    const limited = await startTestApp({ ORG_RATE_LIMIT_PER_MINUTE: '1' });
    try {
      const other = await createTenant(limited);
      const send = (path: string) => request(limited.baseUrl, 'POST', path, { token: other.token, body: {} });
      expect((await send(NOTES)).status).toBe(400);
      const [thin, routers] = [await send(NOTES), await send(ROUTERS)];
      expect([thin.status, routers.status]).toEqual([429, 429]);
      expect(thin.body).toEqual({ detail: expect.any(String), code: 'rate_limited' });
      expect(thin.body).toEqual(routers.body);
      expect(thin.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(thin.headers.get('ratelimit')).toMatch(/^"1-in-1min"; r=0; t=\d+$/);
      expect(steady(thin)).toEqual(steady(routers));
      expect(names(thin)).toEqual(names(routers));
    } finally {
      await limited.close();
    }
  });

  it('looks a write up once: no router below the app’s own runs for it', async () => {
    const handle = jest.spyOn(Router.prototype, 'handle');
    try {
      const account = await importAccount(app, tenant);
      expect((await post(NOTES, { token: tenant.token, body: note(account.number) })).status).toBe(201);
      const thinCalls = handle.mock.calls.length;
      handle.mockClear();
      const other = await importAccount(app, tenant);
      expect((await post(ROUTERS, { token: tenant.token, body: note(other.number) })).status).toBe(201);
      expect(thinCalls).toBe(1);
      expect(handle.mock.calls.length).toBeGreaterThan(3);
    } finally {
      handle.mockRestore();
    }
  });
});
