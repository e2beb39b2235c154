// What every streamed response (process lists, staff CSV downloads, any later stream) shares: its own
// bounded concurrency, and a watchdog that ends it when its client stops reading.
//
// To stream from a route: put `holdStreamSlot(streams, ownerOf)` before the handler (the slot is held
// until the response closes), open the cursor with `statementTimeoutMs: config.LIST_STATEMENT_TIMEOUT_MS`,
// and call `watchWriteProgress(res, config.STREAM_IDLE_TIMEOUT_MS)` once headers are set.
import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '../shared/platform/config';
import { ConcurrencySlots, holdSlot } from './load-shedding';

export type StreamSlots = ConcurrencySlots;

/** Connections of the pool that streams may never take: short requests (status, writes) always find one. */
const POOL_CONNECTIONS_KEPT_FOR_SHORT_REQUESTS = 2;

/** One per process: lists and CSV downloads draw from the same slots because they hold the same pool. */
export function createStreamSlots(config: Config): StreamSlots {
  return new ConcurrencySlots('streamed downloads', {
    // A configured value that would let streams hold the whole pool is lowered, whatever was set.
    perProcess: Math.max(
      1,
      Math.min(config.LIST_STREAMS_PER_PROCESS, config.DB_POOL_SIZE - POOL_CONNECTIONS_KEPT_FOR_SHORT_REQUESTS),
    ),
    perOrganisation: config.LIST_STREAMS_PER_ORGANISATION,
    retryAfterSeconds: config.LOAD_SHED_RETRY_AFTER_SECONDS,
  });
}

/** Middleware holding a stream slot for `ownerOf(req)` (an organisation, or a staff user) until the response closes. */
export function holdStreamSlot(streams: StreamSlots, ownerOf: (req: Request) => string): RequestHandler {
  return holdSlot(streams, ownerOf);
}

/**
 * Ends `res` (destroying its socket, which fails the pipeline and frees the cursor's connection) when
 * no byte has left for the socket for `idleMs`. Progress is the socket's byte count: once the client
 * stops reading, the kernel and Node buffers fill, backpressure stops the pipeline, and it stops growing.
 */
export function watchWriteProgress(res: Response, idleMs: number): void {
  const socket = res.socket;
  if (!socket) return;
  let lastBytes = socket.bytesWritten;
  let lastProgress = Date.now();
  const timer = setInterval(
    () => {
      if (socket.bytesWritten !== lastBytes) {
        lastBytes = socket.bytesWritten;
        lastProgress = Date.now();
      } else if (Date.now() - lastProgress >= idleMs) {
        clearInterval(timer);
        res.destroy(new Error(`no write progress for ${idleMs} ms`));
      }
    },
    Math.max(50, Math.min(1_000, idleMs / 4)),
  );
  timer.unref();
  res.once('close', () => clearInterval(timer));
}
