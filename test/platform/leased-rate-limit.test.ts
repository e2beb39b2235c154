// The organisation limit's leased Redis counter (api/leased-rate-limit-store.ts), against the real Redis:
// few round trips, never more admitted than the limit across processes, no Redis call once spent.
import { LeasedRateLimitStore, leaseSize } from '../../api/leased-rate-limit-store';
import { createRedis, untilReady, type RedisClient } from '../../shared/platform/redis';
import { testConfig, uniqueSuffix } from '../helpers/context';

describe('the leased rate-limit store', () => {
  let redis: RedisClient;
  const prefix = `{test-${uniqueSuffix()}}:rl:org:`;

  beforeAll(async () => {
    redis = createRedis(testConfig(), 'producer');
    await untilReady(redis);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  const store = (limit: number) => {
    const s = new LeasedRateLimitStore(redis, prefix, limit, 100);
    s.init({ windowMs: 60_000 });
    return s;
  };
  const counter = async (key: string) => Number(await redis.get(prefix + key));

  it('leases hits in blocks: twelve requests under a 5,000 limit take three round trips', async () => {
    expect(leaseSize(5_000, 100)).toBe(5);
    const s = store(5_000);
    const hits: number[] = [];
    for (let i = 0; i < 12; i++) hits.push((await s.increment('a')).totalHits);
    expect(hits).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(await counter('a')).toBe(15);
    expect(await redis.pttl(prefix + 'a')).toBeGreaterThan(50_000);
  });

  it('never admits more than the limit across two processes, and refuses at most the unused leases early', async () => {
    const limit = 3_000;
    const [one, two] = [store(limit), store(limit)];
    let admitted = 0;
    for (let i = 0; i < 3_100; i++) {
      const { totalHits } = await (i % 3 === 0 ? one : two).increment('b');
      if (totalHits <= limit) admitted += 1;
    }
    expect(admitted).toBeLessThanOrEqual(limit);
    expect(admitted).toBeGreaterThanOrEqual(limit - 2 * (leaseSize(limit, 100) - 1));
  });

  it('refuses without asking Redis once the window is spent', async () => {
    const s = store(1_000);
    for (let i = 0; i < 1_000; i++) await s.increment('c');
    const spent = await counter('c');
    const over = [];
    for (let i = 0; i < 5; i++) over.push((await s.increment('c')).totalHits);
    expect(over).toEqual([1_001, 1_002, 1_003, 1_004, 1_005]);
    expect(await counter('c')).toBe(spent);
  });

  it('asks Redis on every request with a lease of at most 1', async () => {
    const s = new LeasedRateLimitStore(redis, prefix, 120_000, 1);
    s.init({ windowMs: 60_000 });
    for (let i = 0; i < 3; i++) await s.increment('f');
    expect(await counter('f')).toBe(3);
  });

  it('counts one at a time, exactly, under a limit below 1,000', async () => {
    const s = store(60);
    for (let i = 0; i < 3; i++) await s.increment('d');
    expect(await counter('d')).toBe(3);
  });

  it('shares one lease among concurrent requests', async () => {
    const s = store(100_000);
    const hits = await Promise.all(Array.from({ length: 50 }, () => s.increment('e')));
    expect(hits.map((h) => h.totalHits).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await counter('e')).toBe(leaseSize(100_000, 100));
  });
});
