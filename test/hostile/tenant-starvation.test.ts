// One organisation whose client opens list downloads and never reads them must not take the database
// pool from another organisation: streamed lists hold bounded slots, a stalled one is ended (watchdog,
// statement time-out), and a request that finds no free connection is answered 503, never left hanging.
import { createStreamSlots, type StreamSlots } from '../../api/streaming';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { createImportProcesses, stalledDownload as stalledAt, type StalledDownload } from '../helpers/stream-clients';
import { until } from '../helpers/until';

/** Enough rows (~12 MB of JSON) that a client that stops reading fills every buffer on the way. */
const LIST_ROWS = 100_000;

/** A GET whose client reads the first chunk (to learn the status) and then never reads again. */
const stalledDownload = (app: TestApp, tenant: Tenant, path: string): StalledDownload =>
  stalledAt(app.api.port, path, `Authorization: Token ${tenant.token}\r\n`);

const listPath = (tenant: Tenant) => `/v1/data-import/pending-account-import-processes/${tenant.supplier}/`;

describe('stalled list downloads of one organisation', () => {
  let app: TestApp;
  let streams: StreamSlots;
  let hog: Tenant;
  let victim: Tenant;
  const downloads: StalledDownload[] = [];

  beforeAll(async () => {
    const overrides = { STREAM_IDLE_TIMEOUT_MS: '60000' };
    streams = createStreamSlots((await import('../helpers/context')).testConfig(overrides));
    app = await startTestApp(overrides, { streams });
    hog = await createTenant(app);
    victim = await createTenant(app, {
      accounts: [{ external_account_number: 'B-1', state: 'imported', open_statement_from: '2026-11-01' }],
    });
    await createImportProcesses(app, hog.supplier, LIST_ROWS);
  });
  afterAll(async () => {
    for (const d of downloads) d.socket.destroy();
    await app.close();
  });

  it("do not delay another organisation's status request, and the excess is refused 429 with Retry-After", async () => {
    const statusOfB = () =>
      request(app.baseUrl, 'GET', `/v1/data-import/account-transfer-status/${victim.supplier}/B-1/`, {
        token: victim.token,
      });
    const started = performance.now();
    expect((await statusOfB()).status).toBe(200);
    const baselineMs = performance.now() - started;

    for (let i = 0; i < 16; i++) downloads.push(stalledDownload(app, hog, listPath(hog)));
    const statuses = await Promise.all(downloads.map((d) => d.status));

    const during = performance.now();
    const res = await Promise.race([
      statusOfB(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('status of B not answered within 10 s')), 10_000).unref(),
      ),
    ]);
    const elapsed = performance.now() - during;

    expect(res.status).toBe(200);
    expect(elapsed).toBeLessThan(2_000 + 20 * baselineMs);
    const perOrganisation = streams.organisations.limits.perOrganisation;
    expect(statuses.filter((s) => s === 200)).toHaveLength(perOrganisation);
    expect(statuses.filter((s) => s === 429)).toHaveLength(16 - perOrganisation);
    expect(streams.organisations.held(`org:${await orgId(app, hog)}`)).toBe(perOrganisation);

    const refused = await request(app.baseUrl, 'GET', listPath(hog), { token: hog.token });
    expect([refused.status, refused.body.code, refused.headers.get('retry-after')]).toEqual([
      429,
      'too_many_concurrent_requests',
      String(app.config.LOAD_SHED_RETRY_AFTER_SECONDS),
    ]);
    // The other organisation still has its own slots.
    const own = await request(app.baseUrl, 'GET', listPath(victim), { token: victim.token });
    expect(own.status).toBe(200);
  }, 30_000);
});

async function orgId(app: TestApp, tenant: Tenant): Promise<number> {
  const org = await app.db.prisma.organisationSupplier.findFirstOrThrow({ where: { supplierCode: tenant.supplier } });
  return org.organisationId;
}

describe('a list download whose client stops reading', () => {
  const open = async (overrides: Record<string, string>) => {
    const streams = createStreamSlots((await import('../helpers/context')).testConfig(overrides));
    const app = await startTestApp(overrides, { streams });
    const tenant = await createTenant(app);
    await createImportProcesses(app, tenant.supplier, LIST_ROWS);
    return { app, tenant, streams };
  };

  /** Backends of this test database running the list's cursor. */
  const cursorsRunning = async (app: TestApp) => {
    const { rows } = await app.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE '%FROM account_import_processes p%' AND pid <> pg_backend_pid()`,
    );
    return rows[0]!.n;
  };

  it.each([
    ['the delivery-rate watchdog', { STREAM_IDLE_TIMEOUT_MS: '1000', LIST_STATEMENT_TIMEOUT_MS: '600000' }],
    ["the cursor's time-out", { STREAM_IDLE_TIMEOUT_MS: '600000', LIST_STATEMENT_TIMEOUT_MS: '3000' }],
  ])(
    'is ended by %s, freeing its slot and its connection',
    async (_by, overrides) => {
      const { app, tenant, streams } = await open(overrides);
      try {
        const download = stalledDownload(app, tenant, listPath(tenant));
        expect(await download.status).toBe(200);
        expect(streams.organisations.held()).toBe(1);

        // The slot is released when the server closes the response; the paused client cannot see the close
        // until it reads, so the server side is what is watched.
        await until(
          'stalled download ended and its slot released',
          () => (streams.organisations.held() === 0 ? true : undefined),
          15_000,
        );
        await until(
          'cursor gone from the database',
          async () => ((await cursorsRunning(app)) === 0 ? true : undefined),
          5_000,
        );
        // The freed slot serves the next download (only its start is read: a whole list may outlast a short time-out).
        const next = stalledDownload(app, tenant, listPath(tenant));
        expect(await next.status).toBe(200);
        download.socket.destroy();
        next.socket.destroy();
      } finally {
        await app.close();
      }
    },
    30_000,
  );
});

describe('a request that finds every pooled connection busy', () => {
  it('is answered 503 database_busy with Retry-After after the acquire time-out, not left waiting', async () => {
    // The acquire time-out also bounds opening a connection: 1 s leaves a busy machine room for that.
    const app = await startTestApp({ DB_POOL_SIZE: '2', DB_ACQUIRE_TIMEOUT_MS: '1000' });
    try {
      const tenant = await createTenant(app, { accounts: [{ external_account_number: 'E-1', state: 'staged' }] });
      const path = `/v1/data-import/account-transfer-status/${tenant.supplier}/E-1/`;
      const held = [await app.db.pool.connect(), await app.db.pool.connect()];

      const started = performance.now();
      const res = await request(app.baseUrl, 'GET', path, { token: tenant.token, headers: { connection: 'close' } });
      const elapsed = performance.now() - started;

      for (const client of held) client.release();
      expect([res.status, res.body.code, res.headers.get('retry-after')]).toEqual([
        503,
        'database_busy',
        String(app.config.LOAD_SHED_RETRY_AFTER_SECONDS),
      ]);
      expect(elapsed).toBeLessThan(5_000);
      expect((await request(app.baseUrl, 'GET', path, { token: tenant.token })).status).toBe(200);
    } finally {
      await app.close();
    }
  }, 30_000);
});
