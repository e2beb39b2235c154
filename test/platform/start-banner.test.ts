// `npm start`'s line for people: every address it names answers on the running service (no 404).
import { startBanner } from '../../scripts/start-banner';
import { startTestApp, type TestApp } from '../helpers/app';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

it('names the API, the docs and the staff pages at addresses that answer', async () => {
  const port = Number(new URL(app.baseUrl).port);
  const line = startBanner({ HOST: '0.0.0.0', PORT: port, STAFF_PORT: undefined, STAFF_HOST: '127.0.0.1' });

  expect(line.split('\n')).toHaveLength(2);
  const urls = [...line.matchAll(/http:\/\/[^\s,)]+/g)].map((m) => m[0]);
  expect(urls.map((u) => new URL(u).pathname)).toEqual([
    '/v1/data-import/',
    '/docs',
    '/v1/data-import/openapi.json',
    '/login',
    '/admin/queues',
    '/support/',
  ]);
  for (const url of urls.slice(1)) {
    const res = await fetch(url.replace('localhost', '127.0.0.1'), { redirect: 'manual' });
    await res.body?.cancel();
    expect([url, res.status === 404]).toEqual([url, false]);
  }
});

it('names the staff listener when STAFF_PORT moves the staff pages', () => {
  const line = startBanner({ HOST: '10.0.0.5', PORT: 8000, STAFF_PORT: 9000, STAFF_HOST: '127.0.0.1' });
  expect(line).toContain('API http://10.0.0.5:8000/v1/data-import/');
  expect(line).toContain('staff pages http://127.0.0.1:9000/login');
});
