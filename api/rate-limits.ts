// Rate limits kept in Redis so every API replica counts together: per organisation on the data-import
// API, per client address on obtainToken (API-key guessing). When Redis cannot answer, requests pass
// (availability of an import outweighs strict limiting; Redis being down fails the queued writes anyway).
import { createHash } from 'node:crypto';
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

/** The most organisations whose RateLimit-Policy header one process keeps ready (then it starts again). */
const POLICY_CACHE_MAX = 10_000;

/**
 * The organisation limit on every data-import request, kept thin: the leased store answers from memory
 * (Redis once per lease), and the draft-8 headers are the ones express-rate-limit sends, with the
 * policy header (whose partition key is a hash of the organisation) built once per organisation, not
 * hashed on every request.
 */
export function organisationRateLimit(redis: RedisClient, config: Config): RequestHandler {
  const limit = config.ORG_RATE_LIMIT_PER_MINUTE;
  const windowMs = 60_000;
  const store = new LeasedRateLimitStore(
    redis,
    `${config.QUEUE_PREFIX}:rl:org:`,
    limit,
    config.ORG_RATE_LIMIT_LEASE_MAX,
  );
  store.init({ windowMs });
  const name = `"${limit}-in-1min"`;
  const policies = new Map<string, string>();
  const policyOf = (key: string) => {
    let policy = policies.get(key);
    if (policy === undefined) {
      if (policies.size >= POLICY_CACHE_MAX) policies.clear();
      const pk = Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');
      policy = `${name}; q=${limit}; w=${windowMs / 1000}; pk=:${pk}:`;
      policies.set(key, policy);
    }
    return policy;
  };
  return (req, res, next) => {
    const key = String(req.caller?.organisationId ?? 'anonymous');
    // A store that cannot answer lets the request pass (see the top of this file).
    store.increment(key).then(
      ({ totalHits, resetTime }) => {
        const reset = Math.max(0, Math.ceil(((resetTime?.getTime() ?? Date.now() + windowMs) - Date.now()) / 1000));
        res.setHeader('RateLimit', `${name}; r=${Math.max(limit - totalHits, 0)}; t=${reset}`);
        res.setHeader('RateLimit-Policy', policyOf(key));
        if (totalHits <= limit) return next();
        res.setHeader('Retry-After', String(reset));
        tooMany(req, res, next);
      },
      () => next(),
    );
  };
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
