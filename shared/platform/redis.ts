// Redis connections by role. Producers (the API) fail fast when Redis is away so a request never hangs
// on an offline queue; BullMQ workers and QueueEvents block on Redis and must retry forever.
import { Redis, type RedisOptions } from 'ioredis';

export type RedisRole = 'producer' | 'worker';

export function createRedis(url: string, role: RedisRole): Redis {
  const options: RedisOptions =
    role === 'producer'
      ? { enableOfflineQueue: false, maxRetriesPerRequest: 1 }
      : { maxRetriesPerRequest: null };
  const redis = new Redis(url, { ...options, lazyConnect: false });
  // Connection errors surface through the calls that need Redis; without a listener ioredis would
  // print every reconnect attempt.
  redis.on('error', () => undefined);
  return redis;
}

/** Resolves once the connection is ready, or after `timeoutMs` (callers then meet errors per call). */
export async function untilReady(redis: Redis, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    }
    redis.on('ready', done);
  });
}
