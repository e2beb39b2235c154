import { Writable } from 'node:stream';
import pino from 'pino';
import { startApi, type RunningApi } from '../../api/server';
import { createTokenSigner } from '../../shared/auth/access-token';
import { createDatabase, type Database } from '../../shared/platform/db';
import { createTenant, obtainToken, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { testConfig, testDatabaseUrl, uniqueSuffix } from '../helpers/context';

describe('error contract', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await startTestApp({ BODY_LIMIT_BYTES: '1024' });
    tenant = await createTenant(app);
  });
  afterAll(() => app.close());

  const post = (opts: { rawBody: string; headers?: Record<string, string> }) =>
    request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', { token: tenant.token, ...opts });

  it('answers 400 parse_error with an empty errors list to a body that is not JSON', async () => {
    const res = await post({ rawBody: '{"import_supplier": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'parse_error', errors: [] });
  });

  it('answers 415 unsupported_media_type to a POST body sent as text/plain', async () => {
    const res = await post({
      rawBody: JSON.stringify({ import_supplier: tenant.supplier }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'unsupported_media_type' });
  });

  it('answers 415 unsupported_media_type to JSON in a charset the parser does not read', async () => {
    const res = await post({ rawBody: '{}', headers: { 'content-type': 'application/json; charset=latin1' } });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'unsupported_media_type' });
  });

  it('answers 413 request_too_large to a body over BODY_LIMIT_BYTES, and accepts one just under it', async () => {
    const body = (size: number) => JSON.stringify({ pad: 'x'.repeat(size - 10) });
    expect(body(1025)).toHaveLength(1025);
    const tooLarge = await post({ rawBody: body(1025), headers: { 'content-type': 'application/json' } });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toEqual({ detail: expect.any(String), code: 'request_too_large' });

    const fits = await post({ rawBody: body(1024), headers: { 'content-type': 'application/json' } });
    expect(fits.status).not.toBe(413);
  });

  it.each([
    ['outside the API', '/nope', undefined],
    ['under /v1/data-import/ for a signed-in caller', '/v1/data-import/nope/', 'token'],
  ])('answers 404 route_not_found in JSON for an unknown route %s', async (_where, path, auth) => {
    const res = await request(app.baseUrl, 'GET', path, auth ? { token: tenant.token } : {});
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'route_not_found' });
  });

  describe('when the database is unusable', () => {
    const missingDatabase = `data_import_missing_${uniqueSuffix().toLowerCase()}`;
    const logLines: Record<string, unknown>[] = [];
    let broken: { api: RunningApi; db: Database; baseUrl: string };

    beforeAll(async () => {
      const config = testConfig();
      const url = new URL(testDatabaseUrl);
      url.pathname = `/${missingDatabase}`;
      const db = createDatabase({ DATABASE_URL: url.toString(), DB_POOL_SIZE: 1 });
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      });
      const api = await startApi({ config, db, logger: pino({ level: 'error' }, sink) });
      broken = { api, db, baseUrl: `http://127.0.0.1:${api.port}` };
    });
    afterAll(async () => {
      await broken.api.stop();
      await broken.db.close();
    });

    it('answers 500 server_error with an error id and no internals, and logs the cause under that id', async () => {
      const signer = createTokenSigner(testConfig().TOKEN_SECRET, 3600);
      const { token } = await signer.sign({ organisationId: 1, apiKeyId: 1 }, Math.floor(Date.now() / 1000));

      const res = await request(broken.baseUrl, 'GET', '/v1/data-import/account-transfer-status/ANY/EXT-1/', { token });

      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        detail: 'An unexpected error occurred.',
        code: 'server_error',
        error_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      expect(JSON.stringify(res.body)).not.toMatch(new RegExp(`${missingDatabase}|prisma|postgres|at .*\\.ts`, 'i'));
      const logged = logLines.find((l) => l.errorId === res.body.error_id);
      expect(JSON.stringify(logged)).toContain(missingDatabase);
    });

    it('answers obtainToken with a server_error GraphQL error that says nothing of the cause', async () => {
      const res = await obtainToken(broken.baseUrl, { APIKey: `dik_${'k'.repeat(40)}` });
      expect(res.status).toBe(200);
      expect(res.body.errors).toEqual([
        expect.objectContaining({
          message: 'Internal error.',
          extensions: expect.objectContaining({ code: 'server_error' }),
        }),
      ]);
      expect(JSON.stringify(res.body)).not.toMatch(new RegExp(`${missingDatabase}|prisma|postgres`, 'i'));
    });
  });
});
