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
  // Backing off 0.5, 1, 2 … 32 s: the attempts span about a minute, past a database fail-over or a
  // pooler restart; the caller's wait ends before (503 with a Location that gets the answer).
  retry: { attempts: 8, backoff: { type: 'exponential', delay: 500 } },
  cleanUp: CLEAN_UP,
  concurrency: (config) => config.WORKER_CONCURRENCY,
  // The requests an API process receives together travel in one job (shared/requests/burst.ts): at most
  // a group's worth, about 1 MB of payload, two bursts being handed over at once per API process.
  burst: { name: 'import-transactions-burst', maxItems: 64, maxBytes: 1_000_000, inFlight: 2 },
  // The API commits these bursts itself when it can (no vendor call, nothing to prepare): the queue
  // takes a request only when its transaction could not commit at once (a held lock, a fault).
  direct: { maxItems: 64, inFlight: 2, timeoutMs: 5_000 },
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
        organisationId: request.organisationId,
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
