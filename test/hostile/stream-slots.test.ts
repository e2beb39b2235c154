// Stream slots are shared fairly: organisations that stall their downloads hold only a minority of a
// process's slots (no two reach half), staff downloads have a pool of their own, and a client that
// reads, but too slowly, loses its slot like one that reads nothing.
import { createStreamSlots, type StreamSlots } from '../../api/streaming';
import { minorityShare } from '../../shared/platform/stream-shares';
import { createStaffUser } from '../../shared/staff/staff.use-cases';
import { StaffClient } from '../staff/staff-app';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { testConfig, uniqueSuffix } from '../helpers/context';
import {
  createImportProcesses,
  stalledDownload,
  tricklingDownload,
  type StalledDownload,
} from '../helpers/stream-clients';
import { until } from '../helpers/until';

const LIST_ROWS = 100_000;
const listPath = (tenant: Tenant) => `/v1/data-import/pending-account-import-processes/${tenant.supplier}/`;
const auth = (tenant: Tenant) => `Authorization: Token ${tenant.token}\r\n`;

/** A support user signed in on the app's own listener (the staff pages share it when STAFF_PORT is unset). */
async function signedInSupport(app: TestApp): Promise<StaffClient> {
  const username = `support-${uniqueSuffix().toLowerCase()}`;
  const password = `pw-${uniqueSuffix()}-long-enough`;
  await createStaffUser(app.db, { username, role: 'support', password });
  const staff = new StaffClient(app.baseUrl);
  const signIn = await staff.login(username, password);
  if (signIn.status !== 303) throw new Error(`sign-in failed with ${signIn.status}`);
  return staff;
}

describe('the minority share', () => {
  it('keeps any two owners under half of a pool of 5 slots or more, and gives a lone owner at least 1', () => {
    for (let slots = 1; slots <= 200; slots++) {
      const share = minorityShare(slots);
      expect({ slots, atLeastOne: share >= 1 }).toEqual({ slots, atLeastOne: true });
      if (slots >= 5) expect({ slots, twoUnderHalf: 2 * share < slots / 2 }).toEqual({ slots, twoUnderHalf: true });
    }
  });

  it('lowers a configured per-organisation value that would let two organisations hold half', () => {
    const slots = createStreamSlots(
      testConfig({ LIST_STREAMS_PER_PROCESS: '9', LIST_STREAMS_PER_ORGANISATION: '4', DB_POOL_SIZE: '20' }),
    );
    expect(slots.organisations.limits).toMatchObject({ perProcess: 9, perOrganisation: 2 });
    expect(slots.staff.limits).toMatchObject({ perProcess: 2, perOrganisation: 1 });
  });
});

describe('two organisations stalling three downloads each', () => {
  let app: TestApp;
  let streams: StreamSlots;
  const downloads: StalledDownload[] = [];

  beforeAll(async () => {
    // The defaults: 6 organisation slots, 2 staff slots. The stalls must outlast the test on a busy machine.
    const overrides = { STREAM_IDLE_TIMEOUT_MS: '120000' };
    streams = createStreamSlots(testConfig(overrides));
    app = await startTestApp(overrides, { streams });
  });
  afterAll(async () => {
    for (const d of downloads) d.socket.destroy();
    await app.close();
  });

  it('leave a third organisation its list and reconciliation, and support staff their CSV download', async () => {
    const hogs = [await createTenant(app), await createTenant(app)];
    for (const hog of hogs) await createImportProcesses(app, hog.supplier, LIST_ROWS);
    const third = await createTenant(app, {
      accounts: [{ external_account_number: 'C-1', state: 'imported', open_statement_from: '2026-11-01' }],
    });

    const stalled = hogs.flatMap((hog) =>
      Array.from({ length: 3 }, () => stalledDownload(app.api.port, listPath(hog), auth(hog))),
    );
    downloads.push(...stalled);
    const statuses = await Promise.all(stalled.map((d) => d.status));
    const share = streams.organisations.limits.perOrganisation;
    for (const hog of [statuses.slice(0, 3), statuses.slice(3)]) {
      expect(hog.filter((s) => s === 200)).toHaveLength(share);
      expect(hog.filter((s) => s === 429)).toHaveLength(3 - share);
    }
    // Both organisations' stalls are still held (the lists are far larger than the buffers).
    expect(streams.organisations.held()).toBe(2 * share);

    const allOfThird = `/v1/data-import/all-account-import-processes/${third.supplier}/`;
    const list = await request(app.baseUrl, 'GET', allOfThird, { token: third.token });
    expect([list.status, list.body]).toEqual([200, [expect.objectContaining({ external_account_number: 'C-1' })]]);
    const reconciliation = await request(app.baseUrl, 'GET', `/v1/data-import/reconciliation/${third.supplier}/`, {
      token: third.token,
    });
    expect(reconciliation.status).toBe(200);

    const staff = await signedInSupport(app);
    const csv = await staff.get(`/support/suppliers/${third.supplier}/accounts.csv?list=all`);
    expect([csv.status, csv.text.split('\r\n')[1]]).toEqual([200, expect.stringMatching(/^C-1,/)]);
    // The stalls are untouched by all of this: the lists and the download were served beside them.
    expect(streams.organisations.held()).toBe(2 * share);
    expect(2 * share).toBeLessThan(streams.organisations.limits.perProcess / 2);
  }, 60_000);
});

describe('organisations holding every organisation slot', () => {
  it('leave staff downloads their own pool', async () => {
    const overrides = { LIST_STREAMS_PER_PROCESS: '1', STREAM_IDLE_TIMEOUT_MS: '120000' };
    const streams = createStreamSlots(testConfig(overrides));
    const app = await startTestApp(overrides, { streams });
    const hog = await createTenant(app);
    const other = await createTenant(app, { accounts: [{ external_account_number: 'D-1', state: 'staged' }] });
    await createImportProcesses(app, hog.supplier, LIST_ROWS);
    const stall = stalledDownload(app.api.port, listPath(hog), auth(hog));
    try {
      expect(await stall.status).toBe(200);
      const full = await request(app.baseUrl, 'GET', listPath(other), { token: other.token });
      expect([full.status, full.body.code]).toEqual([503, 'server_busy']);

      const staff = await signedInSupport(app);
      const csv = await staff.get(`/support/suppliers/${other.supplier}/accounts.csv?list=all`);
      expect([csv.status, csv.text.split('\r\n')[1]]).toEqual([200, 'D-1,,']);
      expect(streams.organisations.held()).toBe(1);
    } finally {
      stall.socket.destroy();
      await app.close();
    }
  }, 60_000);
});

describe('a list download whose client trickles', () => {
  it('is cut once it takes fewer bytes than the minimum in an interval, freeing its slot and its cursor', async () => {
    // At least 32 MiB per 4 s; the client reads 1 MiB/s. The kernel's socket buffers (MBs on loopback)
    // pass its reads on to the server in steps of a MB or two, every second or two: a watchdog that
    // waited for no write at all for the interval would never cut it.
    const overrides = {
      STREAM_IDLE_TIMEOUT_MS: '4000',
      STREAM_MIN_BYTES_PER_INTERVAL: String(32 * 1024 * 1024),
      LIST_STATEMENT_TIMEOUT_MS: '600000',
    };
    const streams = createStreamSlots(testConfig(overrides));
    const app = await startTestApp(overrides, { streams });
    const [slow, fast] = [await createTenant(app), await createTenant(app)];
    // ~30 MB, twice what the client reads before the cut plus what the buffers hold; were it not cut,
    // its body would end complete.
    await createImportProcesses(app, slow.supplier, 250_000);
    await createImportProcesses(app, fast.supplier, 20_000);
    const trickle = tricklingDownload(app.api.port, listPath(slow), auth(slow), 1024 * 1024);
    try {
      expect(await trickle.status).toBe(200);
      await until(
        'the trickling download cut and its slot released',
        () => (streams.organisations.held() === 0 ? true : undefined),
        30_000,
      );
      await until('its cursor gone from the database', async () => {
        const { rows } = await app.db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND query LIKE '%FROM account_import_processes p%'
              AND pid <> pg_backend_pid()`,
        );
        return rows[0]!.n === 0 ? true : undefined;
      });
      // It was reading all along, and what it got ends without the chunked body's last chunk: cut, not finished.
      expect(trickle.received()).toBeGreaterThan(0);
      const tail = (await trickle.rest()).toString('latin1');
      expect(tail.endsWith('0\r\n\r\n')).toBe(false);

      // A client that keeps up gets a whole list under the same settings.
      const whole = await request(app.baseUrl, 'GET', listPath(fast), { token: fast.token });
      expect([whole.status, (whole.body as unknown[]).length]).toEqual([200, 20_000]);
    } finally {
      trickle.stop();
      await app.close();
    }
  }, 90_000);
});
