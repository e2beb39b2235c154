// What every processor is given, and a processor's shape: a file of its own so that processors can
// name them without importing processors/index.ts, which imports them.
import type { Job } from 'bullmq';
import type { Config } from '../shared/platform/config';
import type { Database } from '../shared/platform/db';
import type { Logger } from '../shared/platform/logger';

export interface WorkerContext {
  config: Config;
  db: Database;
  logger: Logger;
}

/**
 * What it returns is the job's return value, which rides on its completion event. A job's data is
 * untyped here (BullMQ's Job); a processor names the data its queue carries on its own parameter
 * (`job: Job<QueuedRequestData>`).
 */
export type Processor = (job: Job, ctx: WorkerContext) => Promise<unknown>;
