// Imports one queued transaction batch. The job carries the request the API validated; the import
// runs under the account lock in the transaction that stores the answer (shared/requests/queued-job.ts).
import type { Job } from 'bullmq';
import type { QueuedRequestData } from '../../shared/platform/jobs';
import { runQueuedJob } from '../../shared/requests/queued-job';
import { importTransactions } from '../../shared/transactions/transaction.use-cases';
import type { Processor } from '../worker-context';

export const processTransactionImport: Processor = (job: Job<QueuedRequestData>, ctx) =>
  runQueuedJob('importTransactions', job, ctx, {
    sql: (tx, { requestId, accountId, payload }) =>
      importTransactions(tx, { accountId, requestId, now: new Date() }, payload),
  });
