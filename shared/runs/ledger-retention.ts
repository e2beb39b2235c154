// Run-ledger retention: rows older than RUN_LEDGER_RETENTION_DAYS are deleted by the hourly maintenance
// job (shared/requests/purge-answers.job.ts), in bounded batches so one run stays finite and each
// statement's locks and WAL small; the next hourly run goes on where this one stopped.
import type { Database } from '../platform/db';
import { deleteLedgerBefore } from './ledger.repository';

const BATCH = 5000;
const MAX_BATCHES = 200;

export async function purgeExpiredLedger(db: Database, retentionDays: number, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  let deleted = 0;
  for (let i = 0; i < MAX_BATCHES; i += 1) {
    const n = await deleteLedgerBefore(db.pool, cutoff, BATCH);
    deleted += n;
    if (n < BATCH) break;
  }
  return deleted;
}
