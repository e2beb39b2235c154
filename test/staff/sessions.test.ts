import { createHash } from 'node:crypto';
import { disableStaffUser, setStaffPassword } from '../../shared/staff/staff.use-cases';
import { createTenant, request } from '../helpers/app';
import { createStaff, signedIn, StaffClient, startStaffApp, type StaffTestApp } from './staff-app';

const IDLE_SECONDS = 600;
const MAX_SECONDS = 3600;

describe('staff sign-in and sessions', () => {
  let app: StaffTestApp;

  beforeAll(async () => {
    app = await startStaffApp({
      STAFF_SESSION_IDLE_SECONDS: IDLE_SECONDS,
      STAFF_SESSION_MAX_SECONDS: MAX_SECONDS,
      // Three sign-ins hash at once below, two at a time; on a busy machine the third may wait
      // longer than the default turn. The gate's own turn-away is tested in staff-surface.test.ts.
      STAFF_HASH_WAIT_MS: 60_000,
    });
  });
  afterAll(() => app.close());

  const sessionKey = (client: StaffClient) => {
    const signed = decodeURIComponent(client.cookies.get('staff_session') ?? '');
    const sid = /^s:([^.]+)\./.exec(signed)?.[1] ?? '';
    return `${app.config.QUEUE_PREFIX}:staff-session:${createHash('sha256').update(sid).digest('base64url')}`;
  };

  it('signs an operator in with a session cookie that is HttpOnly, SameSite=Lax, expiring, and stored in Redis', async () => {
    const user = await createStaff(app, 'operator');
    const client = new StaffClient(app.baseUrl);
    const res = await client.login(user.username, user.password);
    expect(res.status).toBe(303);
    expect(res.location).toBe('/admin/queues');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('staff_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const expires = Date.parse(/Expires=([^;]+)/.exec(cookie)![1]!);
    expect(Math.abs(expires - (Date.now() + IDLE_SECONDS * 1000))).toBeLessThan(5_000);
    expect(cookie).not.toMatch(/Secure/);
    const ttl = await app.redis.pttl(sessionKey(client));
    expect(ttl).toBeGreaterThan((IDLE_SECONDS - 5) * 1000);
    expect(ttl).toBeLessThanOrEqual(IDLE_SECONDS * 1000);
    const page = await client.get('/support/');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`Signed in as <strong>${user.username}</strong> (operator)`);
    const row = await app.db.prisma.staffUser.findUniqueOrThrow({ where: { username: user.username } });
    expect(row.lastLoginAt).not.toBeNull();
  });

  it('sends support staff to the support page after sign-in, and to a requested staff page when one was asked for', async () => {
    const user = await createStaff(app, 'support');
    const first = await new StaffClient(app.baseUrl).login(user.username, user.password);
    expect(first.location).toBe('/support/');
    const asked = await new StaffClient(app.baseUrl).login(user.username, user.password, {
      next: '/support/suppliers/X/',
    });
    expect(asked.location).toBe('/support/suppliers/X/');
    const offsite = await new StaffClient(app.baseUrl).login(user.username, user.password, {
      next: '//evil.example/support/',
    });
    expect(offsite.location).toBe('/support/');
  });

  it('refuses a wrong password, an unknown username and a disabled user with the same answer', async () => {
    const user = await createStaff(app, 'support');
    const disabled = await createStaff(app, 'support');
    await disableStaffUser(app.db, { username: disabled.username });
    const answers = await Promise.all([
      new StaffClient(app.baseUrl).login(user.username, 'not-the-password-at-all'),
      new StaffClient(app.baseUrl).login(`nobody-${user.username}`, user.password),
      new StaffClient(app.baseUrl).login(disabled.username, disabled.password),
    ]);
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401]);
    const messages = answers.map((r) => /<p class="message error"[^>]*>([^<]+)</.exec(r.text)?.[1]);
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).toMatch(/Sign-in failed/);
    // None of them got a session that opens a page.
    const client = new StaffClient(app.baseUrl);
    await client.login(disabled.username, disabled.password);
    expect((await client.get('/support/')).status).toBe(303);
  });

  it('refuses a sign-in form posted without its CSRF token', async () => {
    const user = await createStaff(app, 'operator');
    const client = new StaffClient(app.baseUrl);
    await client.get('/login');
    const res = await client.send('POST', '/login', { form: { username: user.username, password: user.password } });
    expect(res.status).toBe(403);
    expect((await client.get('/support/')).status).toBe(303);
  });

  it('refuses sign-out without the CSRF token, and signs out with it, deleting the session from Redis', async () => {
    const { client } = await signedIn(app, 'support');
    const key = sessionKey(client);
    expect(await app.redis.exists(key)).toBe(1);
    const forged = await client.send('POST', '/logout', { form: {} });
    expect(forged.status).toBe(403);
    expect((await client.get('/support/')).status).toBe(200);
    const _csrf = await client.csrfFrom('/support/');
    const out = await client.send('POST', '/logout', { form: { _csrf } });
    expect(out.status).toBe(303);
    expect(out.location).toBe('/login');
    expect(await app.redis.exists(key)).toBe(0);
    const after = await client.get('/support/');
    expect(after.status).toBe(303);
    expect(after.location).toBe('/login?next=%2Fsupport%2F');
  });

  it('ends a session that has been idle longer than the idle limit, and any session past the absolute limit', async () => {
    const idle = await signedIn(app, 'support');
    app.clock.advance((IDLE_SECONDS + 61) * 1000);
    expect((await idle.client.get('/support/')).status).toBe(303);

    const busy = await signedIn(app, 'support');
    // A request every half idle period keeps the session alive until the absolute limit ends it.
    for (let spent = 0; spent < MAX_SECONDS; spent += IDLE_SECONDS / 2) {
      expect((await busy.client.get('/support/')).status).toBe(200);
      app.clock.advance((IDLE_SECONDS / 2) * 1000);
    }
    app.clock.advance(1000);
    expect((await busy.client.get('/support/')).status).toBe(303);
  });

  it('ends every session of a user who is disabled or whose password is changed', async () => {
    const a = await signedIn(app, 'operator');
    const b = await signedIn(app, 'operator');
    expect((await a.client.get('/support/')).status).toBe(200);
    await disableStaffUser(app.db, { username: a.username });
    expect((await a.client.get('/support/')).status).toBe(303);

    await setStaffPassword(app.db, { username: b.username, password: 'a-brand-new-password-1' });
    expect((await b.client.get('/support/')).status).toBe(303);
    expect((await new StaffClient(app.baseUrl).login(b.username, b.password)).status).toBe(401);
    expect((await new StaffClient(app.baseUrl).login(b.username, 'a-brand-new-password-1')).status).toBe(303);
  });

  it('ignores an organisation API token on staff pages', async () => {
    const tenant = await createTenant(app.asTestApp());
    const authorization = `Token ${tenant.token}`;
    const res = await fetch(`${app.baseUrl}/support/`, { headers: { authorization }, redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login?next=%2Fsupport%2F');
    const api = await fetch(`${app.baseUrl}/admin/queues/api/queues`, {
      headers: { authorization },
      redirect: 'manual',
    });
    expect(api.status).toBe(401);
    expect(api.headers.get('www-authenticate')).toBeNull();
    expect(await api.json()).toEqual({ detail: expect.any(String), code: 'not_authenticated' });
  });

  it('does not let a staff session cookie into the data-import API', async () => {
    const tenant = await createTenant(app.asTestApp(), {
      accounts: [{ external_account_number: 'E1', state: 'staged' }],
    });
    const { client } = await signedIn(app, 'operator');
    const path = `/v1/data-import/account-transfer-status/${tenant.supplier}/E1/`;
    const withCookie = await fetch(app.baseUrl + path, { headers: { cookie: client.cookieHeader() } });
    expect(withCookie.status).toBe(401);
    expect(await withCookie.json()).toEqual({ detail: expect.any(String), code: 'not_authenticated' });
    const withToken = await request(app.baseUrl, 'GET', path, { token: tenant.token });
    expect(withToken.status).toBe(200);
  });
});

describe('staff sign-in rate limit', () => {
  let app: StaffTestApp;

  beforeAll(async () => {
    app = await startStaffApp({ STAFF_LOGIN_RATE_LIMIT_PER_MINUTE: 5, TRUST_PROXY: 'loopback' });
  });
  afterAll(() => app.close());

  it('limits failed sign-ins per client address, refusing even the right password until the minute is over', async () => {
    const user = await createStaff(app, 'support');
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const client = new StaffClient(app.baseUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await client.login(user.username, 'wrong-password-here', {}, from('203.0.113.7'))).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const limited = await client.login(user.username, user.password, {}, from('203.0.113.7'));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.text).toContain('Too many failed sign-ins');
    const elsewhere = await new StaffClient(app.baseUrl).login(user.username, user.password, {}, from('203.0.113.8'));
    expect(elsewhere.status).toBe(303);
  });
});

describe('staff cookies behind TLS', () => {
  let app: StaffTestApp;

  beforeAll(async () => {
    app = await startStaffApp({ STAFF_COOKIE_SECURE: 'true', TRUST_PROXY: 'loopback' });
  });
  afterAll(() => app.close());

  it('marks the cookies Secure and gives the session cookie the __Host- prefix when STAFF_COOKIE_SECURE=true, also when removing it', async () => {
    const user = await createStaff(app, 'operator');
    const client = new StaffClient(app.baseUrl);
    const https = { 'x-forwarded-proto': 'https' };
    const _csrf = /name="_csrf" value="([^"]+)"/.exec((await client.get('/login', https)).text)![1]!;
    const res = await client.send('POST', '/login', {
      form: { _csrf, username: user.username, password: user.password },
      headers: https,
    });
    expect(res.status).toBe(303);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('__Host-staff_session='))!;
    expect(cookie).toMatch(/; Path=\/;/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).not.toMatch(/Domain=/);
    const board = await client.get('/admin/queues', https);
    expect(board.headers.getSetCookie().find((c) => c.startsWith('XSRF-TOKEN='))).toMatch(/; Secure/);
    const token = /name="_csrf" value="([^"]+)"/.exec((await client.get('/support/', https)).text)![1]!;
    const out = await client.send('POST', '/logout', { form: { _csrf: token }, headers: https });
    expect(out.headers.getSetCookie().find((c) => c.startsWith('__Host-staff_session=;'))).toMatch(
      /Expires=Thu, 01 Jan 1970.*; Secure/,
    );
  });
});
