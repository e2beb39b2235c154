// Which processor handles each queue. Every queue in shared/platform/jobs.ts has exactly one entry;
// the queued requests' processors run through runQueuedJob (shared/requests/queued-job.ts).
import type { Job } from 'bullmq';
import { JOBS, MAINTENANCE } from '../../shared/platform/jobs';
import { processPaymentInstruction } from './payment-instructions.processor';
import { processMaintenance } from './maintenance.processor';
import { processTransactionImport } from './transactions.processor';
import type { WorkerContext } from '../worker-context';

/** What it returns is the job's return value, which rides on its completion event. */
export type Processor = (job: Job, ctx: WorkerContext) => Promise<unknown>;

export const PROCESSORS: Record<string, Processor> = {
  [JOBS.createPaymentInstruction.queue]: processPaymentInstruction,
  [JOBS.importTransactions.queue]: processTransactionImport,
  [MAINTENANCE.queue]: processMaintenance,
};
