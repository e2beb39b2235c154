// Failed sign-ins per client address and per user name, counted in Redis so every replica counts
// together (the pattern of api/rate-limits.ts). Successful sign-ins do not count. If Redis cannot answer, sign-in fails
// too: sessions live in Redis, so nothing would work anyway, and a limiter that opens when its
// store is down is what a password guesser hopes for.
import { createHash } from 'node:crypto';
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

/**
 * Failed sign-ins per user name (as the form sent it, lower-cased: user names are stored lower-cased),
 * whichever addresses they come from. Mounted after the form parser. The key is a digest, so any text
 * a caller types becomes a short Redis key.
 */
export function userLoginRateLimit(
  redis: RedisClient,
  opts: { prefix: string; perHour: number },
  tooMany: RequestHandler,
): RequestHandler {
  return rateLimit({
    windowMs: 3_600_000,
    limit: opts.perHour,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    skipSuccessfulRequests: true,
    keyGenerator: (req) => {
      const username = (req.body as { username?: unknown } | undefined)?.username;
      const name = typeof username === 'string' ? username.slice(0, 256).trim().toLowerCase() : '';
      return createHash('sha256').update(name).digest('base64url');
    },
    store: redisRateLimitStore(redis, `${opts.prefix}:rl:staff-login-user:`),
    handler: tooMany,
  });
}
