import { request, startTestApp, type TestApp } from '../helpers/app';
import { createStaff, StaffClient, startStaffApp, type StaffTestApp } from './staff-app';

const sessionKeys = (app: StaffTestApp) => app.redis.keys(`${app.config.QUEUE_PREFIX}:staff-session:*`);

describe('staff sign-in', () => {
  let app: StaffTestApp;

  beforeAll(async () => {
    app = await startStaffApp({
      STAFF_LOGIN_RATE_LIMIT_PER_USER_PER_HOUR: 3,
      STAFF_LOGIN_RATE_LIMIT_PER_MINUTE: 100,
      TRUST_PROXY: 'loopback',
    });
  });
  afterAll(() => app.close());

  it('stores no session in Redis for the sign-in form or a failed sign-in, one once a sign-in succeeds', async () => {
    const user = await createStaff(app, 'support');
    const client = new StaffClient(app.baseUrl);
    for (let i = 0; i < 5; i++) expect((await client.get('/login')).status).toBe(200);
    expect((await client.login(user.username, 'not-the-password-at-all')).status).toBe(401);
    expect(await sessionKeys(app)).toEqual([]);
    expect((await client.login(user.username, user.password)).status).toBe(303);
    expect(await sessionKeys(app)).toHaveLength(1);
    expect((await client.get('/support/')).status).toBe(200);
  });

  it('refuses a sign-in whose form token does not match its cookie', async () => {
    const user = await createStaff(app, 'support');
    const client = new StaffClient(app.baseUrl);
    const token = await client.csrfFrom('/login');
    const other = new StaffClient(app.baseUrl);
    await other.get('/login');
    const forged = await other.send('POST', '/login', {
      form: { _csrf: token, username: user.username, password: user.password },
    });
    expect(forged.status).toBe(403);
    const missing = await new StaffClient(app.baseUrl).send('POST', '/login', {
      form: { _csrf: token, username: user.username, password: user.password },
    });
    expect(missing.status).toBe(403);
  });

  it('throttles failed sign-ins per user name, whatever address they come from, and leaves other users alone', async () => {
    const user = await createStaff(app, 'support');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const from = { 'x-forwarded-for': `198.51.100.${i + 1}` };
      statuses.push(
        (await new StaffClient(app.baseUrl).login(user.username.toUpperCase(), 'wrong-password-here', {}, from)).status,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    const right = await new StaffClient(app.baseUrl).login(
      user.username,
      user.password,
      {},
      { 'x-forwarded-for': '198.51.100.99' },
    );
    expect(right.status).toBe(429);
    expect(right.headers.get('retry-after')).toMatch(/^\d+$/);
    const other = await createStaff(app, 'support');
    expect(
      (
        await new StaffClient(app.baseUrl).login(
          other.username,
          other.password,
          {},
          { 'x-forwarded-for': '198.51.100.1' },
        )
      ).status,
    ).toBe(303);
  });
});

describe('password hashing behind a semaphore', () => {
  async function burst(settings: Record<string, string | number>, n: number) {
    const app = await startStaffApp({ STAFF_LOGIN_RATE_LIMIT_PER_MINUTE: 100, ...settings });
    try {
      const users = await Promise.all(Array.from({ length: n }, () => createStaff(app, 'support')));
      const clients = users.map(() => new StaffClient(app.baseUrl));
      const tokens = await Promise.all(clients.map((c) => c.csrfFrom('/login')));
      const replies = await Promise.all(
        clients.map((c, i) =>
          c.send('POST', '/login', {
            form: { _csrf: tokens[i]!, username: users[i]!.username, password: users[i]!.password },
          }),
        ),
      );
      return replies.map((r) => ({ status: r.status, retryAfter: r.headers.get('retry-after') }));
    } finally {
      await app.close();
    }
  }

  it('turns away sign-ins that wait longer than STAFF_HASH_WAIT_MS for a turn, with 429 and Retry-After', async () => {
    const replies = await burst({ STAFF_HASH_CONCURRENCY: 1, STAFF_HASH_WAIT_MS: 50 }, 6);
    const refused = replies.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.every((r) => r.retryAfter === '1')).toBe(true);
    expect(replies.filter((r) => r.status === 303).length).toBeGreaterThanOrEqual(1);
    expect(replies.every((r) => r.status === 303 || r.status === 429)).toBe(true);
  });

  it('lets sign-ins that find a turn within the wait go through one after another', async () => {
    const replies = await burst({ STAFF_HASH_CONCURRENCY: 1, STAFF_HASH_WAIT_MS: 30_000 }, 4);
    expect(replies.map((r) => r.status)).toEqual([303, 303, 303, 303]);
  });
});

describe('staff pages on STAFF_PORT', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ STAFF_PORT: '0' });
  });
  afterAll(() => app.close());

  it('serves the sign-in page, dashboard and support page only on the staff port', async () => {
    const staffUrl = `http://127.0.0.1:${app.api.staff!.port}`;
    expect(app.api.staff!.port).not.toBe(app.api.port);
    for (const path of ['/login', '/support/', '/admin/queues']) {
      expect({ path, status: (await request(app.baseUrl, 'GET', path)).status }).toEqual({ path, status: 404 });
    }
    expect((await request(staffUrl, 'GET', '/login')).status).toBe(200);
    const user = await createStaff(app, 'operator');
    expect((await new StaffClient(staffUrl).login(user.username, user.password)).status).toBe(303);
  });

  it('does not serve the data-import API on the staff port', async () => {
    const res = await request(`http://127.0.0.1:${app.api.staff!.port}`, 'GET', '/v1/data-import/openapi.json');
    expect(res.status).toBe(404);
    expect((await request(app.baseUrl, 'GET', '/v1/data-import/openapi.json')).status).toBe(200);
  });
});
