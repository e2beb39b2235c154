// Starts one BullMQ Worker per queue, each running its processor with the shared context.
import { Worker } from 'bullmq';
import { blockingConnection, QUEUE_NAMES } from '../shared/platform/jobs';
import type { Config } from '../shared/platform/config';
import type { Database } from '../shared/platform/db';
import type { Logger } from '../shared/platform/logger';
import { PROCESSORS, type WorkerContext } from './processors';

export interface RunningWorkers {
  workers: Worker[];
  /** Stops taking jobs, lets running ones finish, closes connections. */
  stop(): Promise<void>;
}

export async function startWorkers(deps: { config: Config; db: Database; logger: Logger }): Promise<RunningWorkers> {
  const ctx: WorkerContext = { ...deps };
  const workers = QUEUE_NAMES.filter((name) => PROCESSORS[name]).map((name) => {
    const processor = PROCESSORS[name]!;
    const worker = new Worker(name, (job) => processor(job, ctx), {
      connection: blockingConnection(deps.config),
      prefix: deps.config.QUEUE_PREFIX,
      concurrency: deps.config.WORKER_CONCURRENCY,
    });
    worker.on('error', (err) => deps.logger.warn({ err, queue: name }, 'worker connection error'));
    worker.on('failed', (job, err) =>
      deps.logger.warn({ queue: name, jobId: job?.id, attempt: job?.attemptsMade, err: err.message }, 'job attempt failed'),
    );
    return worker;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return {
    workers,
    async stop() {
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
