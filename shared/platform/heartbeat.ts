// Worker liveness, shared through Redis so any API replica can tell whether some worker is alive:
// each worker process refreshes its score in one sorted set every few seconds.
import type { RedisClient } from './redis';

export const HEARTBEAT_INTERVAL_MS = 5_000;
const STALE_AFTER_MS = 3 * HEARTBEAT_INTERVAL_MS;

const heartbeatKey = (prefix: string) => `${prefix}:worker-heartbeats`;

export async function beat(redis: RedisClient, prefix: string, workerId: string, now = Date.now()): Promise<void> {
  await redis
    .multi()
    .zadd(heartbeatKey(prefix), now, workerId)
    .zremrangebyscore(heartbeatKey(prefix), 0, now - 10 * STALE_AFTER_MS)
    .exec();
}

export async function removeBeat(redis: RedisClient, prefix: string, workerId: string): Promise<void> {
  await redis.zrem(heartbeatKey(prefix), workerId);
}

export async function liveWorkerCount(redis: RedisClient, prefix: string, now = Date.now()): Promise<number> {
  return redis.zcount(heartbeatKey(prefix), now - STALE_AFTER_MS, '+inf');
}
