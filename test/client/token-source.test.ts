// The client's sign-in: a sign-in that failed for good is not asked again by the next caller (the run's
// declaration and its first batch start side by side and share one sign-in, whatever its outcome).
import { FatalError } from '../../client/client-errors';
import { serviceFetch } from '../../client/http/service-fetch';
import { TokenSource } from '../../client/http/token-source';
import { isTokenRequest, startFakeService, tokenAnswer, type FakeService } from './fake-service';

const API_KEY = 'sk-token-source-test-0123456789';
const services: FakeService[] = [];
afterAll(() => Promise.all(services.map((s) => s.close())));

async function fake(answer: Parameters<typeof startFakeService>[0]): Promise<FakeService> {
  const s = await startFakeService(answer);
  services.push(s);
  return s;
}

it('a redirected sign-in fails every caller, the late one too, with one request sent', async () => {
  const service = await fake(() => ({ status: 307, headers: { location: 'http://localhost:1/v1/graphql/' } }));
  const tokens = new TokenSource(service.baseUrl, API_KEY, serviceFetch);
  const first = await tokens.token().catch((err: unknown) => err);
  const later = await tokens.token().catch((err: unknown) => err);
  expect(first).toBeInstanceOf(FatalError);
  expect(later).toBe(first);
  expect(service.received).toHaveLength(1);
});

it('a refused key fails every caller with one request sent', async () => {
  const service = await fake(() => ({
    status: 200,
    body: { errors: [{ message: 'Invalid API key.', extensions: { code: 'KT-CT-1139' } }] },
  }));
  const tokens = new TokenSource(service.baseUrl, API_KEY, serviceFetch);
  const [a, b] = await Promise.all([tokens.token().catch((e: unknown) => e), tokens.token().catch((e: unknown) => e)]);
  const c = await tokens.token().catch((e: unknown) => e);
  expect(a).toBeInstanceOf(FatalError);
  expect((a as Error).message).toContain('KT-CT-1139');
  expect([b, c]).toEqual([a, a]);
  expect(service.received).toHaveLength(1);
});

it('a passing outage is not final: the next caller signs in', async () => {
  let calls = 0;
  const service = await fake((req) => (isTokenRequest(req) && ++calls > 1 ? tokenAnswer() : { status: 503 }));
  const tokens = new TokenSource(service.baseUrl, API_KEY, serviceFetch);
  await expect(tokens.token()).rejects.toThrow('obtainToken answered 503');
  await expect(tokens.token()).resolves.toEqual(expect.any(String));
  expect(service.received).toHaveLength(2);
});
