// Bounded concurrency per process and per organisation for requests that hold something scarce for
// long (a database connection for a whole streamed list, a wait of up to RESULT_WAIT_MS for a queued
// write). A request over either bound is answered at once, never queued: 429 when its organisation
// holds its share (the others are unaffected), 503 when the process is full for everyone. Counts are
// per process on purpose: what they protect (this process's pool, sockets and memory) is per process.
import type { Request, RequestHandler } from 'express';
import { OverloadError } from '../shared/platform/errors';

export interface SlotLimits {
  perProcess: number;
  perOrganisation: number;
  retryAfterSeconds: number;
}

/** Counters for one kind of long-held resource. `what` names it in the refusal's detail. */
export class ConcurrencySlots {
  private inUse = 0;
  private readonly byOwner = new Map<string, number>();

  constructor(
    readonly what: string,
    readonly limits: SlotLimits,
  ) {}

  /** Takes a slot for `owner` and returns its release (idempotent), or throws the refusal. */
  acquire(owner: string): () => void {
    const held = this.byOwner.get(owner) ?? 0;
    const { perOrganisation, perProcess, retryAfterSeconds } = this.limits;
    if (held >= perOrganisation) {
      throw new OverloadError(
        429,
        'too_many_concurrent_requests',
        `At most ${perOrganisation} ${this.what} at a time per organisation. Retry after Retry-After seconds.`,
        retryAfterSeconds,
      );
    }
    if (this.inUse >= perProcess) {
      throw new OverloadError(
        503,
        'server_busy',
        `The server is at its limit of ${this.what}. Retry after Retry-After seconds.`,
        retryAfterSeconds,
      );
    }
    this.inUse++;
    this.byOwner.set(owner, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse--;
      const left = (this.byOwner.get(owner) ?? 1) - 1;
      if (left === 0) this.byOwner.delete(owner);
      else this.byOwner.set(owner, left);
    };
  }

  /** Slots held now, in total and by one owner (metrics and tests). */
  held(owner?: string): number {
    return owner === undefined ? this.inUse : (this.byOwner.get(owner) ?? 0);
  }
}

/**
 * Holds one of `slots` for the whole life of the request: released when the response has finished or
 * the connection closed, whichever comes first (a client that goes away must not keep its slot).
 * A refusal sets Retry-After here, so it also reaches pages rendered by other error handlers.
 */
export function holdSlot(slots: ConcurrencySlots, ownerOf: (req: Request) => string): RequestHandler {
  return (req, res, next) => {
    let release: () => void;
    try {
      release = slots.acquire(ownerOf(req));
    } catch (err) {
      if (err instanceof OverloadError) res.set('Retry-After', String(err.retryAfterSeconds));
      throw err;
    }
    res.once('close', release);
    next();
  };
}
