// Which processor handles each queue. Every queue in shared/platform/jobs.ts has exactly one entry;
// the queued requests' processors run through runQueuedJob (shared/requests/queued-job.ts).
import { JOBS, MAINTENANCE } from '../../shared/platform/jobs';
import { processPaymentInstruction } from './payment-instructions.processor';
import { processMaintenance } from './maintenance.processor';
import { processTransactionImport } from './transactions.processor';
import type { Processor } from '../worker-context';

export const PROCESSORS: Record<string, Processor> = {
  [JOBS.createPaymentInstruction.queue]: processPaymentInstruction,
  [JOBS.importTransactions.queue]: processTransactionImport,
  [MAINTENANCE.queue]: processMaintenance,
};
