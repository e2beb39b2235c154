// Every job the service runs, for the processes: the API opens the queues of the queued requests and
// waits on their answers; the worker runs every job below. Each job is declared in its component
// (shared/requests/job-declaration.ts says what a declaration holds); adding one here is all it takes
// for the worker to run it and for /readyz, /metrics and the queue board to show its queue.
import { accountProcessJob, accountScheduleJob } from '../account-import/account-creation.job';
import { releaseHoldsJob } from '../account-import/release-holds.job';
import type { Config } from '../platform/config';
import type { AnyQueuedRequestJob, ScheduledJob } from '../requests/job-declaration';
import { answerLostJobsJob } from '../requests/answer-lost-jobs';
import { purgeAnswersJob } from '../requests/purge-answers.job';
import { paymentInstructionJob } from '../payment-instructions/payment-instruction.job';
import { transactionImportJob } from '../transactions/transaction.job';

/** Jobs that answer an HTTP request (the wait-for-result protocol). */
export const QUEUED_REQUEST_JOBS: readonly AnyQueuedRequestJob[] = [
  transactionImportJob,
  paymentInstructionJob,
  accountProcessJob,
  accountScheduleJob,
];

/** Jobs the service schedules for itself. */
export const SCHEDULED_JOBS: readonly ScheduledJob[] = [purgeAnswersJob, answerLostJobsJob, releaseHoldsJob];

/** The queues of the queued requests' jobs (what the API opens). */
export const REQUEST_QUEUES = [...new Set(QUEUED_REQUEST_JOBS.map((j) => j.queue))];

/**
 * A worker process's pool: every job a process runs at once may hold one connection for its whole
 * transaction, and a queue's Worker runs at most its largest concurrency at once, plus one connection
 * for the scheduled jobs, which run one at a time: 16 × 3 request queues + 1 = 49 connections by
 * default (docs/deployment.md "Connections").
 */
export function workerPoolSize(config: Pick<Config, 'DB_POOL_SIZE' | 'WORKER_CONCURRENCY'>): number {
  const perQueue = new Map<string, number>();
  for (const job of QUEUED_REQUEST_JOBS) {
    perQueue.set(job.queue, Math.max(perQueue.get(job.queue) ?? 0, job.concurrency(config)));
  }
  const requestJobs = [...perQueue.values()].reduce((sum, n) => sum + n, 0);
  return Math.max(config.DB_POOL_SIZE, requestJobs + 1);
}

/** Every queue a worker process takes jobs from. */
export const WORKER_QUEUES = [...new Set([...REQUEST_QUEUES, ...SCHEDULED_JOBS.map((j) => j.queue)])];
