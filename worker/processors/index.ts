// Which processor handles each queue. Every queue in shared/platform/jobs.ts has exactly one entry.
import type { Job } from 'bullmq';
import type { Config } from '../../shared/platform/config';
import type { Database } from '../../shared/platform/db';
import type { Logger } from '../../shared/platform/logger';
import { JOBS } from '../../shared/platform/jobs';
import { processPaymentInstruction } from './payment-instructions.processor';
import { processTransactionImport } from './transactions.processor';

export interface WorkerContext {
  config: Config;
  db: Database;
  logger: Logger;
}

export type Processor = (job: Job, ctx: WorkerContext) => Promise<void>;

export const PROCESSORS: Record<string, Processor> = {
  [JOBS.createPaymentInstruction.queue]: processPaymentInstruction,
  [JOBS.importTransactions.queue]: processTransactionImport,
};
