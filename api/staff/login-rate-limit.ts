// Failed sign-ins per client address, counted in Redis so every replica counts together (the pattern
// of api/rate-limits.ts). Successful sign-ins do not count. If Redis cannot answer, sign-in fails
// too: sessions live in Redis, so nothing would work anyway, and a limiter that opens when its
// store is down is what a password guesser hopes for.
import type { RequestHandler } from 'express';
import { rateLimit, ipKeyGenerator } from 'express-rate-limit';
import type { RedisClient } from '../../shared/platform/redis';
import { redisRateLimitStore } from '../rate-limits';

export function loginRateLimit(
  redis: RedisClient,
  opts: { prefix: string; perMinute: number },
  tooMany: RequestHandler,
): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: opts.perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    skipSuccessfulRequests: true,
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? 'unknown'),
    store: redisRateLimitStore(redis, `${opts.prefix}:rl:staff-login:`),
    handler: tooMany,
  });
}
