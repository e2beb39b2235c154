// Stored answers are replayed for 24 h (the Idempotency-Key window) and can be polled as long; after
// that only what refuses a reused key (key + body hash) and what support looks up stays.
import type { Database } from '../platform/db';
import { purgeAnswers } from './request-result.repository';
import { IDEMPOTENCY_WINDOW_MS } from './queued-request';

// Batches keep each statement's locks and WAL small; the bound keeps one run finite (the next hourly
// run goes on where this one stopped).
const BATCH = 5000;
const MAX_BATCHES = 200;

export async function purgeExpiredAnswers(db: Database, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
  let purged = 0;
  for (let i = 0; i < MAX_BATCHES; i += 1) {
    const n = await purgeAnswers(db.pool, cutoff, BATCH);
    purged += n;
    if (n < BATCH) break;
  }
  return purged;
}
