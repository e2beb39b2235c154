// The organisation limit's counter, shared through Redis but not asked on every request: each API
// process takes a lease of up to ORG_RATE_LIMIT_LEASE_MAX hits at a time (one INCRBY) and counts them
// off locally. Every hit admitted anywhere holds its own unit of the Redis counter, so the limit is never exceeded
// across replicas; what a lease leaves unused counts as spent, so a client may be refused up to
// (processes × (lease − 1)) hits early in a window, never late. Once a window is spent, the local
// pre-check refuses without asking Redis until the window ends. A limit under 1,000 leases one hit
// at a time: small limits (tests, sign-in guessing) stay exact.
import type { ClientRateLimitInfo, Store } from 'express-rate-limit';
import type { RedisClient } from '../shared/platform/redis';

// INCRBY and start the window on the first hit, as rate-limit-redis does; answers the new total and
// the milliseconds the window still runs.
const LEASE_SCRIPT = `local total = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) ttl = tonumber(ARGV[2]) end
return { total, ttl }`;

interface Lease {
  resetAt: number;
  /** Hits of this key counted in Redis before this process's latest lease. */
  base: number;
  /** Hits this process admitted from its latest lease. */
  used: number;
  size: number;
}

export const leaseSize = (limit: number, max: number) => Math.max(1, Math.min(max, Math.floor(limit / 1000)));

export class LeasedRateLimitStore implements Store {
  readonly localKeys = false;
  private windowMs = 60_000;
  // One entry per organisation seen by this process (a spent window's entry is replaced on the next
  // request): bounded by the number of organisations, which the platform team creates.
  private readonly leases = new Map<string, Lease>();
  private readonly pending = new Map<string, Promise<Lease>>();

  constructor(
    private readonly redis: RedisClient,
    readonly prefix: string,
    private readonly limit: number,
    private readonly leaseMax: number,
    private readonly nowMs: () => number = Date.now,
  ) {}

  init(options: { windowMs: number }): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    // Bounded: a lease taken for this call serves it unless concurrent callers drained it first.
    for (let round = 0; round < 8; round++) {
      const lease = this.current(key) ?? (await this.take(key));
      if (lease.used < lease.size || lease.base + lease.used >= this.limit) {
        lease.used += 1;
        return { totalHits: lease.base + lease.used, resetTime: new Date(lease.resetAt) };
      }
      this.leases.delete(key);
    }
    throw new Error('rate-limit lease contended');
  }

  decrement(): void {
    // A hit already leased stays spent: giving it back could admit more than the limit elsewhere.
  }

  async resetKey(key: string): Promise<void> {
    this.leases.delete(key);
    await this.redis.del(this.prefix + key);
  }

  private current(key: string): Lease | undefined {
    const lease = this.leases.get(key);
    if (lease && this.nowMs() < lease.resetAt) return lease;
    this.leases.delete(key);
    return undefined;
  }

  /** One lease request per key at a time: concurrent callers share it. */
  private take(key: string): Promise<Lease> {
    let pending = this.pending.get(key);
    if (!pending) {
      pending = this.lease(key).finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }

  private async lease(key: string): Promise<Lease> {
    const size = leaseSize(this.limit, this.leaseMax);
    const [total, ttl] = (await this.redis.eval(LEASE_SCRIPT, 1, this.prefix + key, size, this.windowMs)) as [
      number,
      number,
    ];
    const lease = { resetAt: this.nowMs() + Number(ttl), base: Number(total) - size, used: 0, size };
    this.leases.set(key, lease);
    return lease;
  }
}
