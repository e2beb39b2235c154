// What some dashboard actions mean for a queued request, done here before (or instead of) the board's
// own handler, so an operator's click never leaves a request without its answer:
//
// - Remove (clean) a scheduled account creation waiting for its window = cancel it: the process becomes
//   CANCELLED with its event (as `admin accounts cancel`), the request is answered 400
//   account_import_process_cancelled, then the job goes. A creation no longer PENDING is not removed (409).
// - Retry a failed job = run its work again: a request answered "retry as it is" (a stored 5xx, which
//   means nothing was written) is reopened first, so the retried job does the work instead of finding an
//   answer and turning green without doing anything.
import type { Request, RequestHandler } from 'express';
import type { Job } from 'bullmq';
import { accountScheduleJob, creationCancelled } from '../../shared/account-import/account-creation.job';
import { cancelAccountCreation } from '../../shared/account-import/account-creation.use-cases';
import type { Database } from '../../shared/platform/db';
import { AppError } from '../../shared/platform/errors';
import type { Logger } from '../../shared/platform/logger';
import type { JobQueues } from '../../shared/platform/queues';
import { REQUEST_QUEUES } from '../../shared/catalog/jobs';
import type { QueuedRequestData } from '../../shared/requests/job-declaration';
import { reopenRetryable, storeAnswerIfPending } from '../../shared/requests/request-result.repository';
import { staffOf } from './session';

const JOB_CLEAN = /^\/api\/queues\/([^/]+)\/([^/]+)\/clean$/;
const JOB_RETRY = /^\/api\/queues\/([^/]+)\/([^/]+)\/retry$/;
const RETRY_FAILED = /^\/api\/queues\/([^/]+)\/retry\/failed$/;
/** The most failed jobs one "Retry all" reopens (BullMQ retries them in pages too). */
const RETRY_ALL_LIMIT = 10_000;
const PAGE = 1_000;

interface Deps {
  db: Database;
  queues: JobQueues;
  logger: Logger;
  now?: () => Date;
}

/** For operators' PUTs (queueAccess has allowed them); everything else passes through untouched. */
export function queueJobActions(deps: Deps): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'PUT' || staffOf(req).role !== 'operator') return next();
    const clean = JOB_CLEAN.exec(req.path);
    if (clean && (await cancelScheduledCreation(deps, req, clean[1]!, clean[2]!))) {
      res.status(204).end();
      return;
    }
    const retry = JOB_RETRY.exec(req.path);
    if (retry && isRequestQueue(retry[1]!)) await reopenFailed(deps, [decodeURIComponent(retry[2]!)]);
    const all = RETRY_FAILED.exec(req.path);
    if (all && isRequestQueue(all[1]!)) await reopenFailed(deps, await failedJobIds(deps, all[1]!));
    next();
  };
}

const isRequestQueue = (name: string) => (REQUEST_QUEUES as readonly string[]).includes(name);

/** True when the job was a scheduled account creation waiting for its window, now cancelled and removed. */
async function cancelScheduledCreation(deps: Deps, req: Request, queueName: string, jobId: string): Promise<boolean> {
  if (queueName !== accountScheduleJob.queue) return false;
  const job = (await deps.queues.queue(queueName).getJob(decodeURIComponent(jobId))) as
    Job<QueuedRequestData<{ import_supplier_code: string; external_account_number: string }>> | undefined;
  if (!job || job.name !== accountScheduleJob.name || (await job.getState()) !== 'delayed') return false;
  const { import_supplier_code: supplier, external_account_number: external } = job.data.payload;
  const now = deps.now?.() ?? new Date();
  const { cancelled } = await cancelAccountCreation(deps.db, supplier, external, now);
  if (!cancelled) {
    throw new AppError(
      409,
      'account_creation_not_pending',
      'This account creation is no longer PENDING (it started, ended or was scheduled again): it cannot be cancelled.',
    );
  }
  await storeAnswerIfPending(deps.db.pool, job.data.resultId, creationCancelled());
  await job.remove().catch(() => undefined);
  deps.logger.info(
    { staff: staffOf(req).username, supplier, external_account_number: external, jobId: job.id },
    'staff cancelled a scheduled account creation',
  );
  return true;
}

/** Reopens the stored 5xx answers of these requests (job id = result id), so their retried jobs run. */
async function reopenFailed(deps: Deps, ids: string[]): Promise<void> {
  if (ids.length > 0) await reopenRetryable(deps.db.pool, ids);
}

async function failedJobIds(deps: Deps, queueName: string): Promise<string[]> {
  const queue = deps.queues.queue(queueName);
  const ids: string[] = [];
  for (let start = 0; start < RETRY_ALL_LIMIT; start += PAGE) {
    const jobs = await queue.getFailed(start, start + PAGE - 1);
    ids.push(...jobs.flatMap((j) => (j?.id ? [j.id] : [])));
    if (jobs.length < PAGE) break;
  }
  return ids;
}
