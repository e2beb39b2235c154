// Imports queued transaction batches. The job carries the request the API validated; the jobs this
// process runs at the same time are imported together, under their accounts' locks, in the transaction
// that stores their answers (group commit: shared/requests/queued-job.ts, shared/requests/group-commit.ts).
import type { Job } from 'bullmq';
import type { JobPayloadOf, QueuedRequestData } from '../../shared/platform/jobs';
import { runQueuedJob, type GroupCommit } from '../../shared/requests/queued-job';
import { importTransactionGroup } from '../../shared/transactions/transaction.use-cases';
import type { Processor } from '../worker-context';

const importGroup: GroupCommit<JobPayloadOf<'importTransactions'>> = {
  group: {
    // Two requests for one account are imported one after the other: the second must see the first's rows.
    keyOf: (request) => request.accountId,
    commit: (tx, requests, locks) =>
      importTransactionGroup(
        tx,
        requests.map((r) => ({ accountId: r.accountId, requestId: r.requestId, import: r.payload })),
        new Date(),
        locks,
      ),
  },
};

export const processTransactionImport: Processor = (job: Job<QueuedRequestData>, ctx) =>
  runQueuedJob('importTransactions', job, ctx, importGroup);
