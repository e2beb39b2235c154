// Which processor handles each queue. Every queue in shared/platform/jobs.ts has exactly one entry.
import type { Job } from 'bullmq';
import { JOBS } from '../../shared/platform/jobs';
import { processPaymentInstruction } from './payment-instructions.processor';
import { processTransactionImport } from './transactions.processor';
import type { WorkerContext } from '../worker-context';

export type Processor = (job: Job, ctx: WorkerContext) => Promise<void>;

export const PROCESSORS: Record<string, Processor> = {
  [JOBS.createPaymentInstruction.queue]: processPaymentInstruction,
  [JOBS.importTransactions.queue]: processTransactionImport,
};
