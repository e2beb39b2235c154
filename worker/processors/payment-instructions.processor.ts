// Creates one queued payment instruction: asks the vendor outside any transaction, then records the
// instruction with the answer (shared/requests/queued-job.ts decides what a fault answers). Everything
// fits in the caller's wait (RESULT_WAIT_MS from when the job was queued, vendor-wait.ts): a vendor call
// gets at most what is left of it, and a fault whose retry could not answer in time answers the spec's
// 500 "retry as it is" at once. An open breaker means the vendor was not asked, so the job waits for the
// breaker's next trial without spending an attempt, as long as that trial can still answer within the
// wait; otherwise the request answers its 500 at once. A job over its organisation's share of vendor
// calls (VENDOR_CALLS_PER_ORGANISATION) is parked the same way.
import { Backoffs, DelayedError, type Job } from 'bullmq';
import { AppError } from '../../shared/platform/errors';
import type { QueuedRequestData } from '../../shared/platform/jobs';
import { recordInstruction, verifyInstruction } from '../../shared/payment-instructions/payment-instruction.use-cases';
import { verifyAtVendor } from '../../shared/payment-instructions/vendors/vendors';
import { VendorCircuitOpenError } from '../../shared/payment-instructions/vendors/vendor-breakers';
import { VendorCallsBusyError } from '../../shared/payment-instructions/vendors/vendor-call-limits';
import { vendorWait, type VendorWait } from '../../shared/payment-instructions/vendors/vendor-wait';
import { GiveUp, runQueuedJob } from '../../shared/requests/queued-job';
import type { Processor, WorkerContext } from '../worker-context';

export const processPaymentInstruction: Processor = (job: Job<QueuedRequestData>, ctx) =>
  runQueuedJob('createPaymentInstruction', job, ctx, {
    // A job redelivered after its request was answered must not call the vendor again.
    onlyWhilePending: true,
    async prepare({ accountId, organisationId, payload }) {
      const wait = vendorWait(job.timestamp, ctx.config);
      try {
        return await verifyInstruction(
          {
            db: ctx.db,
            verify: (i) => verifyAtVendor(ctx.config, i, organisationId, wait.attemptTimeoutMs(Date.now())),
            policy: { requireRecordedCustomer: ctx.config.STRIPE_REQUIRE_RECORDED_CUSTOMER },
          },
          accountId,
          payload,
        );
      } catch (err) {
        if (err instanceof VendorCircuitOpenError || err instanceof VendorCallsBusyError)
          await waitForBreaker(job, ctx, wait, err);
        if (!(err instanceof AppError && err.status < 500)) await giveUpUnlessRetryFits(job, wait, err);
        throw err;
      }
    },
    prisma: (tx, request, verified) => recordInstruction(tx, request, verified),
  });

/** The vendor was not asked (breaker open, or the organisation's share of calls in use): park until `retryAt`. */
async function waitForBreaker(
  job: Job<QueuedRequestData>,
  ctx: WorkerContext,
  wait: VendorWait,
  err: VendorCircuitOpenError | VendorCallsBusyError,
): Promise<never> {
  if (err.retryAt + ctx.config.VENDOR_TIMEOUT_MS > wait.answerBy) throw new GiveUp(err);
  ctx.logger.debug(
    { vendor: err.vendor, retryAt: err.retryAt, reason: err.constructor.name },
    'vendor not asked: job delayed',
  );
  await job.moveToDelayed(err.retryAt, job.token);
  throw new DelayedError();
}

/** A fault BullMQ would retry: when the retry could not answer within the caller's wait, answer the 500 now. */
async function giveUpUnlessRetryFits(job: Job<QueuedRequestData>, wait: VendorWait, err: unknown): Promise<void> {
  // BullMQ's own computation of the delay before the next attempt (it counts this one as made).
  const backoffMs = await Backoffs.calculate(
    Backoffs.normalize(job.opts.backoff ?? 0)!,
    job.attemptsMade + 1,
    err as Error,
    job,
  );
  if (!wait.retryFits(Date.now(), backoffMs ?? 0)) throw new GiveUp(err);
}
