// Rate limits kept in Redis so every API replica counts together: per organisation on the data-import
// API, per client address on obtainToken (API-key guessing). When Redis cannot answer, requests pass
// (availability of an import outweighs strict limiting; Redis being down fails the queued writes anyway).
import type { RequestHandler } from 'express';
import { rateLimit, ipKeyGenerator } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { callOnEveryMaster, type RedisClient } from '../shared/platform/redis';
import type { Config } from '../shared/platform/config';
import { LeasedRateLimitStore } from './leased-rate-limit-store';

export function redisRateLimitStore(redis: RedisClient, prefix: string): RedisStore {
  return new RedisStore({
    prefix,
    // The store loads its Lua scripts with SCRIPT LOAD, which has no key: on a Redis Cluster it must
    // reach the master that will run EVALSHA on the key, so it goes to every master.
    sendCommandCluster: ({ command: [name, ...args] }) =>
      (name!.toUpperCase() === 'SCRIPT'
        ? callOnEveryMaster(redis, name!, ...args)
        : redis.call(name!, ...args)) as Promise<RedisReply>,
  });
}

const tooMany: RequestHandler = (_req, res) => {
  res.status(429).json({ detail: 'Too many requests. Retry after the time in Retry-After.', code: 'rate_limited' });
};

export function organisationRateLimit(redis: RedisClient, config: Config): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: config.ORG_RATE_LIMIT_PER_MINUTE,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    passOnStoreError: true,
    keyGenerator: (req) => String(req.caller?.organisationId ?? 'anonymous'),
    // Leased: the busiest path asks Redis once per hundred requests, not on each (see the store).
    store: new LeasedRateLimitStore(
      redis,
      `${config.QUEUE_PREFIX}:rl:org:`,
      config.ORG_RATE_LIMIT_PER_MINUTE,
      config.ORG_RATE_LIMIT_LEASE_MAX,
    ),
    handler: tooMany,
  });
}

export function tokenRateLimit(redis: RedisClient, config: Config): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: config.TOKEN_RATE_LIMIT_PER_MINUTE,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    passOnStoreError: true,
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? 'unknown'),
    store: redisRateLimitStore(redis, `${config.QUEUE_PREFIX}:rl:token:`),
    handler: tooMany,
  });
}
