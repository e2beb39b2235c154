import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Redis } from 'ioredis';
import { createTenant, obtainToken, request, startTestApp, type TestApp } from '../helpers/app';
import { until } from '../helpers/until';
import { envelope, importedAccount, payment, postTransactions } from '../transactions/transactions.fixture';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('health, readiness and metrics', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ METRICS_TOKEN }, { workers: true });
  });
  afterAll(() => app.close());

  it('answers /healthz while the process is alive', async () => {
    const res = await request(app.baseUrl, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('is ready when PostgreSQL and Redis answer, and reports the worker heartbeat', async () => {
    const res = await request(app.baseUrl, 'GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', failing: [], checks: { postgres: 'ok', redis: 'ok', workers: 'ok' } });
  });

  it('refuses /metrics without the metrics token', async () => {
    expect((await request(app.baseUrl, 'GET', '/metrics')).status).toBe(401);
    const wrong = await request(app.baseUrl, 'GET', '/metrics', {
      headers: { authorization: 'Bearer nope-nope-nope-nope' },
    });
    expect(wrong.status).toBe(401);
  });

  it('exposes request, queue and pool metrics by route template', async () => {
    const tenant = await createTenant(app, { accounts: [{ external_account_number: 'E1', state: 'staged' }] });
    await request(app.baseUrl, 'GET', `/v1/data-import/account-transfer-status/${tenant.supplier}/E1/`, {
      token: tenant.token,
    });
    const res = await request(app.baseUrl, 'GET', '/metrics', {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const text = res.body as string;
    expect(text).toMatch(
      /http_requests_total\{method="GET",route="\/v1\/data-import\/account-transfer-status\/:import_supplier_code\/:external_account_number\/",status="200"\} [1-9]/,
    );
    expect(text).not.toContain(tenant.supplier);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{/);
    expect(text).toMatch(/queue_jobs\{queue="transactions",state="waiting"\} \d+/);
    expect(text).toMatch(/db_pool_connections\{state="total"\} \d+/);
  });

  it('answers an X-Request-Id of its own whatever the client sends, and sets security headers', async () => {
    const given = await request(app.baseUrl, 'GET', '/healthz', { headers: { 'x-request-id': 'batch-42.item-7' } });
    const none = await request(app.baseUrl, 'GET', '/healthz');
    expect(given.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(given.headers.get('x-request-id')).not.toBe(none.headers.get('x-request-id'));
    expect(given.headers.get('x-content-type-options')).toBe('nosniff');
    expect(given.headers.get('strict-transport-security')).toMatch(/max-age=/);
  });
});

describe('readiness when a dependency is down', () => {
  it('stays ready without any worker, reporting none (status, lists, notes and statements need no worker)', async () => {
    const app = await startTestApp();
    try {
      const res = await request(app.baseUrl, 'GET', '/readyz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'ready',
        failing: [],
        checks: { postgres: 'ok', redis: 'ok', workers: 'none' },
      });
    } finally {
      await app.close();
    }
  });

  it('tells an anonymous caller which checks fail and nothing of why, and logs why', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const app = await startTestApp(
      { DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/nothing` },
      { logger: pino({ level: 'info' }, sink) },
    );
    try {
      const res = await request(app.baseUrl, 'GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        status: 'unavailable',
        failing: ['postgres'],
        checks: { postgres: 'failing', redis: 'ok', workers: 'none' },
      });
      const logged = lines.map((l) => JSON.parse(l) as { msg: string; failing?: Record<string, string> });
      const notReady = logged.find((l) => l.msg === 'not ready');
      expect(notReady?.failing?.postgres).toMatch(/ECONNREFUSED|connect/i);
    } finally {
      await app.close();
    }
  });

  it('names postgres when the database cannot be reached', async () => {
    const port = await freePort();
    const app = await startTestApp({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/nothing` });
    try {
      const res = await request(app.baseUrl, 'GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body.failing).toContain('postgres');
    } finally {
      await app.close();
    }
  });

  it('names redis when its Redis server stops, refuses queued writes fast with Retry-After, and recovers', async () => {
    const port = await freePort();
    const startRedis = (): ChildProcess =>
      spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
    let server = startRedis();
    const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    probe.on('error', () => undefined);
    await until('private redis', async () => ((await probe.ping()) === 'PONG' ? true : undefined));
    probe.disconnect();
    const app = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${port}`, DIRECT_COMMIT: 'off' }, { workers: true });
    try {
      const tenant = await createTenant(app);
      const account = await importedAccount(app, tenant);
      expect((await request(app.baseUrl, 'GET', '/readyz')).status).toBe(200);
      server.kill('SIGKILL');
      await new Promise((r) => server.once('exit', r));
      const down = await until('readyz 503', async () => {
        const res = await request(app.baseUrl, 'GET', '/readyz');
        return res.status === 503 ? res : undefined;
      });
      expect(down.body.failing).toContain('redis');
      const started = Date.now();
      const write = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('while-redis-down')]));
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(write.status).toBe(503);
      expect(write.body.code).toBe('queue_unavailable');
      expect(write.headers.get('retry-after')).toBe('2');
      server = startRedis();
      await until(
        'readyz 200 again, with the worker heartbeat back',
        async () => {
          const res = await request(app.baseUrl, 'GET', '/readyz');
          return res.status === 200 && res.body.checks.workers === 'ok' ? res : undefined;
        },
        30_000,
      );
    } finally {
      await app.close();
      server.kill('SIGKILL');
    }
  });
});

describe('rate limits and logs', () => {
  it('limits obtainToken per client address with 429 and Retry-After', async () => {
    const app = await startTestApp({ TOKEN_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof obtainToken>> | undefined;
      for (let i = 0; i < 4; i++) {
        last = await obtainToken(app.baseUrl, { APIKey: `wrong-key-${i}-${'z'.repeat(32)}` });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(last!.body.code).toBe('rate_limited');
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });

  it('limits each organisation separately on the data-import API', async () => {
    const app = await startTestApp({ ORG_RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const a = await createTenant(app);
      const b = await createTenant(app);
      const list = (t: typeof a) =>
        request(app.baseUrl, 'GET', `/v1/data-import/all-account-import-processes/${t.supplier}/`, { token: t.token });
      const answers = [await list(a), await list(a), await list(a)];
      expect(answers.map((r) => r.status)).toEqual([200, 200, 429]);
      expect(answers.map((r) => r.headers.get('ratelimit'))).toEqual([
        expect.stringMatching(/^"2-in-1min"; r=1; t=\d+$/),
        expect.stringMatching(/^"2-in-1min"; r=0; t=\d+$/),
        expect.stringMatching(/^"2-in-1min"; r=0; t=\d+$/),
      ]);
      // The draft-8 policy, its partition key the organisation's (the same on every answer to it).
      const policies = new Set(answers.map((r) => r.headers.get('ratelimit-policy')));
      expect([...policies]).toEqual([expect.stringMatching(/^"2-in-1min"; q=2; w=60; pk=:[A-Za-z0-9+/=]+:$/)]);
      expect(answers[2]!.headers.get('retry-after')).toMatch(/^\d+$/);
      const other = await list(b);
      expect(other.status).toBe(200);
      expect(other.headers.get('ratelimit-policy')).not.toBe([...policies][0]);
    } finally {
      await app.close();
    }
  });

  it("writes one JSON line per request with its request id and the client's own, and never the token", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const app = await startTestApp({}, { logger: pino({ level: 'info' }, sink) });
    try {
      const tenant = await createTenant(app);
      const res = await request(
        app.baseUrl,
        'GET',
        `/v1/data-import/all-account-import-processes/${tenant.supplier}/`,
        { token: tenant.token, headers: { 'x-request-id': 'trace-me-1' } },
      );
      const entries = lines.map(
        (l) =>
          JSON.parse(l) as { req?: { id: string; client_request_id?: string; path: string }; res?: { status: number } },
      );
      const mine = entries.filter((e) => e.req?.client_request_id === 'trace-me-1');
      expect(mine).toHaveLength(1);
      expect(mine[0]!.req?.id).toBe(res.headers.get('x-request-id'));
      expect(mine[0]!.res?.status).toBe(200);
      const all = lines.join('\n');
      expect(all).not.toContain(tenant.token);
      expect(all).not.toContain(tenant.apiKey);
    } finally {
      await app.close();
    }
  });
});
