// Creates one queued payment instruction: asks the vendor outside any transaction, then records the
// instruction with the answer (shared/requests/queued-job.ts decides what a fault answers). An open
// breaker means the vendor was not asked, so the job waits for the breaker's next trial without
// spending an attempt, as long as that trial can still answer within the caller's wait
// (RESULT_WAIT_MS from when the job was queued); otherwise the request answers its 500 at once. A job
// over its organisation's share of vendor calls (VENDOR_CALLS_PER_ORGANISATION) is parked the same way.
import { DelayedError, type Job } from 'bullmq';
import type { QueuedRequestData } from '../../shared/platform/jobs';
import { recordInstruction, verifyInstruction } from '../../shared/payment-instructions/payment-instruction.use-cases';
import { verifyAtVendor } from '../../shared/payment-instructions/vendors/vendors';
import { VendorCircuitOpenError } from '../../shared/payment-instructions/vendors/vendor-breakers';
import { VendorCallsBusyError } from '../../shared/payment-instructions/vendors/vendor-call-limits';
import { GiveUp, runQueuedJob } from '../../shared/requests/queued-job';
import type { Processor, WorkerContext } from '../worker-context';

export const processPaymentInstruction: Processor = (job: Job<QueuedRequestData>, ctx) =>
  runQueuedJob('createPaymentInstruction', job, ctx, {
    // A job redelivered after its request was answered must not call the vendor again.
    onlyWhilePending: true,
    async prepare({ accountId, payload }) {
      try {
        return await verifyInstruction(
          { db: ctx.db, verify: (i) => verifyAtVendor(ctx.config, i, job.data.organisationId) },
          accountId,
          payload,
        );
      } catch (err) {
        if (err instanceof VendorCircuitOpenError || err instanceof VendorCallsBusyError)
          await waitForBreaker(job, ctx, err);
        throw err;
      }
    },
    prisma: (tx, { accountId }, verified) => recordInstruction(tx, accountId, verified),
  });

/** The vendor was not asked (breaker open, or the organisation's share of calls in use): park until `retryAt`. */
async function waitForBreaker(
  job: Job<QueuedRequestData>,
  ctx: WorkerContext,
  err: VendorCircuitOpenError | VendorCallsBusyError,
): Promise<never> {
  const answerBy = job.timestamp + ctx.config.RESULT_WAIT_MS;
  if (err.retryAt + ctx.config.VENDOR_TIMEOUT_MS > answerBy) throw new GiveUp(err);
  ctx.logger.debug(
    { vendor: err.vendor, retryAt: err.retryAt, reason: err.constructor.name },
    'vendor not asked: job delayed',
  );
  await job.moveToDelayed(err.retryAt, job.token);
  throw new DelayedError();
}
