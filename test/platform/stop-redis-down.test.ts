// Stopping the API while its Redis is gone: the queue connections wait to reconnect, and ioredis never
// ends a client closed in that state, so BullMQ's close would wait forever. The wait is bounded
// (closeWithin in shared/platform/queues.ts): the API stops, and nothing of it is left running.
import { CLOSE_WAIT_MS } from '../../shared/platform/queues';
import { startTestApp, type TestApp } from '../helpers/app';
import { startLocalRedis, type LocalRedis } from '../helpers/redis-server';
import { until } from '../helpers/until';

let redis: LocalRedis;
let app: TestApp | undefined;

beforeAll(async () => {
  redis = await startLocalRedis();
});
afterAll(async () => {
  await app?.db.close();
  await redis.stop();
});

it('stops within the bounded wait while Redis is down', async () => {
  app = await startTestApp({ REDIS_URL: redis.url });
  const ready = () => fetch(`${app!.baseUrl}/readyz`).then((r) => r.status);
  expect(await ready()).toBe(200);

  await redis.stop();
  await until('readiness to see Redis gone', async () => ((await ready()) === 503 ? true : undefined));

  const started = Date.now();
  await app.api.stop();
  const tookMs = Date.now() - started;
  // The listener and the queues' bounded wait, with room for a slow machine; unbounded, it never ends.
  expect(tookMs).toBeLessThan(CLOSE_WAIT_MS + 10_000);
}, 60_000);
