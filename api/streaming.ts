// What every streamed response (process lists, reconciliation, staff CSV downloads, any later stream)
// shares: bounded concurrency of its own, and a watchdog that ends it when its client reads too slowly.
//
// To stream from a route: put `holdStreamSlot(streams.organisations, ownerOf)` (or `streams.staff`)
// before the handler (the slot is held until the response closes), open the cursor with
// `statementTimeoutMs: config.LIST_STATEMENT_TIMEOUT_MS`, and call `watchDeliveryRate(res, config)` once
// headers are set.
import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '../shared/platform/config';
import { streamShares, type PoolShare } from '../shared/platform/stream-shares';
import { ConcurrencySlots, holdSlot } from './load-shedding';

/**
 * Two pools per process: organisations' streams, and staff downloads apart from them, so tenants that
 * stall every organisation slot still leave support staff a download (and the reverse).
 */
export interface StreamSlots {
  organisations: ConcurrencySlots;
  staff: ConcurrencySlots;
}

/** One per process: the API's listener and the staff listener draw from the same pools. */
export function createStreamSlots(config: Config): StreamSlots {
  const retryAfterSeconds = config.LOAD_SHED_RETRY_AFTER_SECONDS;
  const shares = streamShares(config);
  const slots = (what: string, share: PoolShare) =>
    new ConcurrencySlots(what, { perProcess: share.perProcess, perOrganisation: share.perOwner, retryAfterSeconds });
  return {
    organisations: slots('streamed downloads', shares.organisations),
    staff: slots('staff downloads', shares.staff),
  };
}

/** Middleware holding a slot of `pool` for `ownerOf(req)` (an organisation, or a staff user) until the response closes. */
export function holdStreamSlot(pool: ConcurrencySlots, ownerOf: (req: Request) => string): RequestHandler {
  return holdSlot(pool, ownerOf);
}

export type DeliveryLimits = Pick<Config, 'STREAM_IDLE_TIMEOUT_MS' | 'STREAM_MIN_BYTES_PER_INTERVAL'>;

/**
 * Ends `res` (destroying its socket, which fails the pipeline and frees the cursor's connection) when
 * its client takes fewer than STREAM_MIN_BYTES_PER_INTERVAL bytes per STREAM_IDLE_TIMEOUT_MS: a reader
 * that trickles a few bytes now and then keeps no slot longer than one that reads nothing.
 *
 * Delivered bytes are those whose writes completed (handed to the kernel): `bytesWritten` counts bytes
 * still queued in the socket too, so its queue (`writableLength`) is taken off. Only time the socket
 * has bytes queued — the client, not the cursor, holds the stream back — counts towards an interval:
 * while the server has nothing to send (a slow query) the statement time-out is the bound instead.
 */
export function watchDeliveryRate(res: Response, limits: DeliveryLimits): void {
  const socket = res.socket;
  if (!socket) return;
  const intervalMs = limits.STREAM_IDLE_TIMEOUT_MS;
  const minBytes = limits.STREAM_MIN_BYTES_PER_INTERVAL;
  const delivered = () => (socket.bytesWritten ?? 0) - socket.writableLength;
  const tickMs = Math.max(50, Math.min(1_000, intervalMs / 4));
  let windowStart = delivered();
  let waitedMs = 0;
  let lastTick = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    if (socket.writableLength > 0) waitedMs += now - lastTick;
    lastTick = now;
    if (waitedMs < intervalMs) return;
    const got = delivered() - windowStart;
    if (got < minBytes) {
      clearInterval(timer);
      res.destroy(new Error(`client took ${got} bytes in ${intervalMs} ms, under ${minBytes}`));
      return;
    }
    windowStart = delivered();
    waitedMs = 0;
  }, tickMs);
  timer.unref();
  res.once('close', () => clearInterval(timer));
}
