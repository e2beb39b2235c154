// Runs one queued transaction import. Outcomes (design: "Request flows"): a rejection is a stored 400
// and the job completes; a fault (database unreachable, connection lost) throws so BullMQ retries with
// backoff, and once the attempts are spent the stored answer is a 500 that says to retry as it is.
import type { Job } from 'bullmq';
import type { Database } from '../../shared/platform/db';
import { ValidationError } from '../../shared/platform/errors';
import type { QueuedRequestData } from '../../shared/platform/jobs';
import type { Logger } from '../../shared/platform/logger';
import { completeRequestSql, failRequest, isFinalAttempt } from '../../shared/requests/queued-job';
import type { QueuedRequestOutcome } from '../../shared/requests/queued-request';
import { TransactionImportError } from '../../shared/transactions/transaction.errors';
import { importTransactions } from '../../shared/transactions/transaction.use-cases';
import { parseTransactionImport, type TransactionImport } from '../../shared/transactions/transaction.validation';

const TEMPORARY_FAILURE: QueuedRequestOutcome = {
  status: 500,
  body: {
    detail: 'The transactions could not be imported because of a temporary failure. Retry the request as it is.',
    code: 'temporary_failure',
  },
};

export async function processTransactionImport(
  job: Job<QueuedRequestData>,
  ctx: { db: Database; logger: Logger },
): Promise<void> {
  const { requestId, accountId, payload } = job.data;
  try {
    // Parsed before the database transaction opens, so the account lock is held only for the import.
    const parsed = reparse(payload);
    await completeRequestSql(ctx.db, requestId, async (tx) =>
      'outcome' in parsed ? parsed.outcome : importTransactions(tx, { accountId, requestId, now: new Date() }, parsed),
    );
  } catch (err) {
    if (isFinalAttempt(job)) {
      await failRequest(ctx.db, requestId, TEMPORARY_FAILURE).catch((storeErr: unknown) =>
        ctx.logger.error({ err: storeErr, requestId }, 'could not store the failure of a transaction import'),
      );
    }
    throw err;
  }
}

/**
 * Validates the job with the request's own rules: payloads outlive deploys, and a job queued under
 * older rules gets the 400 the API would now give instead of being imported unchecked.
 */
function reparse(payload: unknown): TransactionImport | { outcome: QueuedRequestOutcome } {
  try {
    const { options, request } = (payload ?? {}) as { options?: unknown; request?: unknown };
    return parseTransactionImport({ options, request });
  } catch (err) {
    if (err instanceof TransactionImportError) return { outcome: err.toOutcome() };
    if (err instanceof ValidationError) {
      return { outcome: { status: 400, body: { detail: err.message, code: err.code, errors: err.errors } } };
    }
    throw err;
  }
}
