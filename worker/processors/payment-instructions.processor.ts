// Creates one queued payment instruction: asks the vendor outside any transaction, then records the
// instruction with the answer (shared/requests/queued-job.ts decides what a fault answers). An open
// breaker means the vendor was not asked, so the job waits for the breaker's next trial without
// spending an attempt, as long as that trial can still answer within the caller's wait
// (RESULT_WAIT_MS from when the job was queued); otherwise the request answers its 500 at once.
import { DelayedError, type Job } from 'bullmq';
import type { QueuedRequestData } from '../../shared/platform/jobs';
import { recordInstruction, verifyInstruction } from '../../shared/payment-instructions/payment-instruction.use-cases';
import { verifyAtVendor } from '../../shared/payment-instructions/vendors/vendors';
import { VendorCircuitOpenError } from '../../shared/payment-instructions/vendors/vendor-breakers';
import { GiveUp, runQueuedJob } from '../../shared/requests/queued-job';
import type { Processor, WorkerContext } from './index';

export const processPaymentInstruction: Processor = (job, ctx) =>
  runQueuedJob('createPaymentInstruction', job, ctx, {
    // A job redelivered after its request was answered must not call the vendor again.
    onlyWhilePending: true,
    async prepare({ accountId, payload }) {
      try {
        return await verifyInstruction({ db: ctx.db, verify: (i) => verifyAtVendor(ctx.config, i) }, accountId, payload);
      } catch (err) {
        if (err instanceof VendorCircuitOpenError) await waitForBreaker(job, ctx, err);
        throw err;
      }
    },
    prisma: (tx, { accountId }, verified) => recordInstruction(tx, accountId, verified),
  });

async function waitForBreaker(job: Job<QueuedRequestData>, ctx: WorkerContext, err: VendorCircuitOpenError): Promise<never> {
  const answerBy = job.timestamp + ctx.config.RESULT_WAIT_MS;
  if (err.retryAt + ctx.config.VENDOR_TIMEOUT_MS > answerBy) throw new GiveUp(err);
  ctx.logger.debug({ vendor: err.vendor, retryAt: err.retryAt }, 'vendor breaker open: job delayed');
  await job.moveToDelayed(err.retryAt, job.token);
  throw new DelayedError();
}
