import { loadConfig } from '../../shared/platform/config';
import { createStaff, StaffClient, startStaffApp, type StaffTestApp } from './staff-app';

const https = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.20' };

async function sessionCookieOver(app: StaffTestApp, headers: Record<string, string>): Promise<string | undefined> {
  const user = await createStaff(app, 'operator');
  const client = new StaffClient(app.baseUrl);
  const _csrf = /name="_csrf" value="([^"]+)"/.exec((await client.get('/login', headers)).text)![1]!;
  const res = await client.send('POST', '/login', {
    form: { _csrf, username: user.username, password: user.password },
    headers,
  });
  expect(res.status).toBe(303);
  return res.headers.getSetCookie().find((c) => /^(__Host-)?staff_session=/.test(c));
}

describe.each(['1', 'true', '127.0.0.1/8', 'loopback, 10.0.0.0/8'])(
  'staff cookies behind a TLS proxy with TRUST_PROXY=%s',
  (trustProxy) => {
    let app: StaffTestApp;

    beforeAll(async () => {
      app = await startStaffApp({ TRUST_PROXY: trustProxy });
    });
    afterAll(() => app.close());

    it('marks the session cookie Secure when the proxy says the request came over HTTPS', async () => {
      expect(await sessionCookieOver(app, https)).toMatch(/; Secure/);
    });

    it('leaves it without Secure for plain HTTP through the same proxy', async () => {
      expect(await sessionCookieOver(app, { 'x-forwarded-proto': 'http' })).not.toMatch(/; Secure/);
    });
  },
);

describe('TRUST_PROXY parsing', () => {
  const parse = (value: string) => loadConfig({ TRUST_PROXY: value }).TRUST_PROXY;

  it('reads the forms Express documents with their meaning', () => {
    expect(parse('1')).toBe(1);
    expect(parse('2')).toBe(2);
    expect(parse('true')).toBe(true);
    expect(parse('FALSE')).toBe(false);
    expect(parse('loopback')).toEqual(['loopback']);
    expect(parse('loopback, linklocal,uniquelocal')).toEqual(['loopback', 'linklocal', 'uniquelocal']);
    expect(parse('10.0.0.0/8, 192.168.1.1, fc00::/7, 172.16.0.0/255.240.0.0')).toEqual([
      '10.0.0.0/8',
      '192.168.1.1',
      'fc00::/7',
      '172.16.0.0/255.240.0.0',
    ]);
  });

  it('refuses at start what Express would misread, naming the entry', () => {
    for (const wrong of ['yes', '10.0.0.0/33', 'loopback;10.0.0.1', '1.2.3', '', '999']) {
      expect(() => parse(wrong)).toThrow(/TRUST_PROXY/);
    }
  });

  it('refuses STAFF_COOKIE_SECURE=true without a trusted proxy: the service itself speaks only HTTP', () => {
    expect(() => loadConfig({ STAFF_COOKIE_SECURE: 'true' })).toThrow(/STAFF_COOKIE_SECURE=true needs TRUST_PROXY/);
    expect(() => loadConfig({ STAFF_COOKIE_SECURE: 'true', TRUST_PROXY: 'false' })).toThrow(/needs TRUST_PROXY/);
    expect(loadConfig({ STAFF_COOKIE_SECURE: 'true', TRUST_PROXY: '1' }).STAFF_COOKIE_SECURE).toBe('true');
  });
});
