// Runs createPaymentInstruction for a queued request and turns vendor faults into BullMQ signals:
// - a fault (time-out, connection, 429, 5xx) throws, so BullMQ retries with the job's backoff; the last
//   attempt first stores 500 vendor_unavailable ("retry as-is") so the waiting request answers;
// - an open breaker means the vendor was not asked, so the job waits for the breaker's next trial
//   without spending an attempt, as long as that trial can still answer within the caller's wait
//   (RESULT_WAIT_MS from when the job was queued); otherwise it answers 500 at once.
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { QueuedRequestData } from '../../shared/platform/jobs';
import { createPaymentInstruction, retryAsIsOutcome } from '../../shared/payment-instructions/payment-instruction.use-cases';
import { verifyAtVendor } from '../../shared/payment-instructions/vendors/vendors';
import { VendorCircuitOpenError } from '../../shared/payment-instructions/vendors/vendor-breakers';
import { failRequest, isFinalAttempt } from '../../shared/requests/queued-job';
import type { WorkerContext } from '../worker-context';

export async function processPaymentInstruction(job: Job<QueuedRequestData>, ctx: WorkerContext): Promise<void> {
  try {
    await createPaymentInstruction({ db: ctx.db, verify: (i) => verifyAtVendor(ctx.config, i) }, job.data);
  } catch (err) {
    if (err instanceof VendorCircuitOpenError) return waitForBreaker(job, ctx, err);
    if (isFinalAttempt(job)) await failRequest(ctx.db, job.data.requestId, retryAsIsOutcome(err));
    throw err;
  }
}

async function waitForBreaker(job: Job<QueuedRequestData>, ctx: WorkerContext, err: VendorCircuitOpenError): Promise<never> {
  const answerBy = job.timestamp + ctx.config.RESULT_WAIT_MS;
  if (err.retryAt + ctx.config.VENDOR_TIMEOUT_MS <= answerBy) {
    ctx.logger.debug({ vendor: err.vendor, retryAt: err.retryAt }, 'vendor breaker open: job delayed');
    await job.moveToDelayed(err.retryAt, job.token);
    throw new DelayedError();
  }
  await failRequest(ctx.db, job.data.requestId, retryAsIsOutcome(err));
  throw new UnrecoverableError(err.message);
}
