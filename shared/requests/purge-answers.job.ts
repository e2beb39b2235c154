// A scheduled job: every hour, drop the stored answers of queued requests whose replay window (24 h)
// has passed (purge-answers.ts), and delete run-ledger rows past RUN_LEDGER_RETENTION_DAYS (shared/runs/).
// Every worker process upserts the same scheduler.
import { CLEAN_UP } from '../platform/queues';
import type { ScheduledJob } from './job-declaration';
import { purgeExpiredAnswers } from './purge-answers';
import { purgeExpiredLedger } from '../runs/ledger-retention';

export const purgeAnswersJob: ScheduledJob = {
  queue: 'maintenance',
  name: 'purge-request-results',
  everyMs: 3600_000,
  retry: { attempts: 3, backoff: { type: 'exponential', delay: 1000 } },
  cleanUp: CLEAN_UP,
  async run(ctx) {
    const purged = await purgeExpiredAnswers(ctx.db, new Date());
    ctx.logger.info({ purged }, 'expired request answers purged');
    const ledgerRows = await purgeExpiredLedger(ctx.db, ctx.config.RUN_LEDGER_RETENTION_DAYS, new Date());
    if (ledgerRows > 0) ctx.logger.info({ ledgerRows }, 'run ledger rows past their retention deleted');
    return { purged, ledgerRows };
  },
};
