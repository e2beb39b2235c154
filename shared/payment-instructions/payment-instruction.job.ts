// The payment-instruction job: POST /v1/data-import/payment-instruction/create/ is validated by the API
// (payment-instruction.use-cases.ts); a worker asks the vendor, then records the instruction with the
// answer (verify-and-record.ts). Each job commits alone: its account lock waits, as a vendor's answer
// must be recorded.
//
// Everything fits in the caller's wait (RESULT_WAIT_MS from when the job was queued, vendor-wait.ts): a
// vendor call gets at most what is left of it, and a fault whose retry could not answer in time answers
// the spec's 500 "retry as it is" at once. An open breaker means the vendor was not asked, so the job
// waits for the breaker's next trial without spending an attempt, as long as that trial can still
// answer within the wait; otherwise the request answers its 500 at once. A job over its organisation's
// share of vendor calls (VENDOR_CALLS_PER_ORGANISATION) is parked the same way.
import { Backoffs, DelayedError, type Job } from 'bullmq';
import type { Config } from '../platform/config';
import { AppError, TransientError } from '../platform/errors';
import { CLEAN_UP } from '../platform/queues';
import {
  accountOf,
  queuedRequestJob,
  type JobContext,
  type QueuedRequest,
  type QueuedRequestData,
} from '../requests/job-declaration';
import { GiveUp } from '../requests/queued-job';
import { paymentInstructionJobPayload } from './payment-instruction.job-payload';
import type { CreatePaymentInstruction } from './payment-instruction.schemas';
import { recordInstruction, verifyInstruction, type Verified } from './verify-and-record';
import { VendorCircuitOpenError } from './vendors/vendor-breakers';
import { VendorCallsBusyError } from './vendors/vendor-call-limits';
import { vendorWait, type VendorWait } from './vendors/vendor-wait';
import { verifyAtVendor } from './vendors/vendors';

export const paymentInstructionJob = queuedRequestJob<CreatePaymentInstruction, Verified>({
  queue: 'payment-instructions',
  name: 'create-payment-instruction',
  endpoint: 'payment-instruction/create',
  payload: paymentInstructionJobPayload,
  // Vendor faults are retried inside the caller's wait: up to 6 attempts backing off 0.25, 0.5, 1, 2,
  // 4 s, fewer when the next one could not end within the wait; then the request answers 500.
  retry: { attempts: 6, backoff: { type: 'exponential', delay: 250 } },
  cleanUp: CLEAN_UP,
  concurrency: (config) => config.WORKER_CONCURRENCY,
  group: { keyOf: (request) => accountOf(request), maxSize: 1, inFlight: Number.POSITIVE_INFINITY },
  // A job redelivered after its request was answered must not call the vendor again.
  onlyWhilePending: true,
  prepare: askVendor,
  commit: async (tx, [one]) => [
    await recordInstruction(
      tx,
      { accountId: accountOf(one!.request), organisationId: one!.request.organisationId },
      one!.prepared,
    ),
  ],
  exhausted: () => new TransientError('server_error', 'An unexpected error occurred. Retry the request as it is.'),
});

async function askVendor(request: QueuedRequest<CreatePaymentInstruction>, ctx: JobContext): Promise<Verified> {
  const { job, organisationId, payload } = request;
  // Payment instructions are never committed by the API (no `direct`): their requests always come as jobs.
  if (!job) throw new Error('a payment instruction must run as a job');
  const accountId = accountOf(request);
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
      await parkUntilVendorFree(job, ctx, wait, err);
    if (!(err instanceof AppError && err.status < 500)) await giveUpUnlessRetryFits(job, wait, err);
    throw err;
  }
}

/** The vendor was not asked (breaker open, or the organisation's share of calls in use): park until `retryAt`. */
async function parkUntilVendorFree(
  job: Job<QueuedRequestData>,
  ctx: { config: Pick<Config, 'VENDOR_TIMEOUT_MS'>; logger: JobContext['logger'] },
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
