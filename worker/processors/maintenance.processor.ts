// The service's scheduled jobs (MAINTENANCE in shared/platform/jobs.ts). Today one: dropping the
// stored answers of queued requests once their replay window (24 h) has passed, and answering the
// requests whose job vanished from Redis (shared/requests/answer-lost-jobs.ts).
import { MAINTENANCE } from '../../shared/platform/jobs';
import { answerLostJobs } from '../../shared/requests/answer-lost-jobs';
import { purgeExpiredAnswers } from '../../shared/requests/purge-answers';
import type { Processor } from '../worker-context';

export const processMaintenance: Processor = async (job, ctx) => {
  if (job.name !== MAINTENANCE.purgeRequestResults.name) throw new Error(`unknown maintenance job ${job.name}`);
  const purged = await purgeExpiredAnswers(ctx.db, new Date());
  ctx.logger.info({ purged }, 'expired request answers purged');
  const lost = await answerLostJobs(ctx.db, ctx.config, new Date());
  if (lost > 0)
    ctx.logger.warn({ lost }, 'pending requests whose job vanished from Redis answered 500 (retry as it is)');
  return { purged, lost };
};
