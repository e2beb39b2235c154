// express-session's store on the API's existing ioredis connection (connect-redis now speaks only
// node-redis, and a second Redis client is not worth one small class). Sessions are JSON under a key
// derived from the session id by SHA-256, so whoever can read Redis cannot lift a live session id
// out of it. Each key expires with its cookie, so Redis forgets idle sessions by itself and every
// API replica sees the same sessions.
import { createHash } from 'node:crypto';
import session, { type SessionData } from 'express-session';
import type { RedisClient } from '../../shared/platform/redis';

export class RedisSessionStore extends session.Store {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly fallbackTtlMs: number,
  ) {
    super();
  }

  key(sid: string): string {
    return this.prefix + createHash('sha256').update(sid).digest('base64url');
  }

  private ttlMs(sess: SessionData): number {
    const expires = sess.cookie?.expires ? new Date(sess.cookie.expires).getTime() : undefined;
    return expires === undefined ? this.fallbackTtlMs : expires - Date.now();
  }

  override get(sid: string, done: (err: unknown, sess?: SessionData | null) => void): void {
    this.redis.get(this.key(sid)).then(
      (json) => done(null, json ? (JSON.parse(json) as SessionData) : null),
      (err: unknown) => done(err),
    );
  }

  override set(sid: string, sess: SessionData, done: (err?: unknown) => void = () => undefined): void {
    const ttl = this.ttlMs(sess);
    if (ttl <= 0) return this.destroy(sid, done);
    this.redis.set(this.key(sid), JSON.stringify(sess), 'PX', ttl).then(
      () => done(),
      (err: unknown) => done(err),
    );
  }

  override touch(sid: string, sess: SessionData, done: (err?: unknown) => void = () => undefined): void {
    const ttl = this.ttlMs(sess);
    if (ttl <= 0) return this.destroy(sid, done);
    this.redis.pexpire(this.key(sid), ttl).then(
      () => done(),
      (err: unknown) => done(err),
    );
  }

  override destroy(sid: string, done: (err?: unknown) => void = () => undefined): void {
    this.redis.del(this.key(sid)).then(
      () => done(),
      (err: unknown) => done(err),
    );
  }
}
