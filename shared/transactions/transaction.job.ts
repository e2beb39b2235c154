// The transactions import job: POST /v1/data-import/transactions/create/ is validated by the API
// (transaction.use-cases.ts) and imported by a worker, the jobs a process runs at once together in one
// transaction with their answers (import-group.ts; the transaction itself: shared/requests/queued-job.ts).
import { TransientError } from '../platform/errors';
import { CLEAN_UP } from '../platform/queues';
import { accountOf, queuedRequestJob } from '../requests/job-declaration';
import { importTransactionGroup } from './import-group';
import { compactTransactionsAnswer, transactionImportJobPayload } from './transaction.job-payload';

export const transactionImportJob = queuedRequestJob({
  queue: 'transactions',
  name: 'import-transactions',
  endpoint: 'transactions/create',
  payload: transactionImportJobPayload,
  compactForm: compactTransactionsAnswer,
  retry: { attempts: 5, backoff: { type: 'exponential', delay: 200 } },
  cleanUp: CLEAN_UP,
  concurrency: (config) => config.WORKER_CONCURRENCY,
  group: {
    // Two requests for one account are imported one after the other: the second must see the first's rows.
    keyOf: (request) => accountOf(request),
    // Most jobs in one transaction, and most transactions committing at once in a process: two let
    // PostgreSQL work on one group while the next one fills.
    maxSize: 64,
    inFlight: 2,
  },
  commit: (tx, requests, locks) =>
    importTransactionGroup(
      tx,
      requests.map(({ request }) => ({
        accountId: accountOf(request),
        resultId: request.resultId,
        import: request.payload,
      })),
      new Date(),
      locks,
    ),
  exhausted: () =>
    new TransientError(
      'temporary_failure',
      'The transactions could not be imported because of a temporary failure. Retry the request as it is.',
    ),
});
