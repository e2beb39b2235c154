// Entry point of a worker process: a child of `npm start`, or run apart (`npm run start:worker`).
// Under `npm start` the supervisor has migrated already, so a (re)started child does not.
import cluster from 'node:cluster';
import { workerPoolSize } from '../shared/catalog/jobs';
import { processMetrics } from '../shared/platform/metrics';
import { schemaSteps } from '../prisma/migrate';
import { boot, onShutdown } from '../shared/platform/process';
import { startMetricsServer } from './metrics-server';
import { startWorkers } from './worker';

async function main(): Promise<void> {
  const { config, db, logger } = await boot('worker', {
    schema: cluster.isWorker ? undefined : schemaSteps,
    role: 'worker',
    poolSize: workerPoolSize,
    workerPool: workerPoolSize,
  });
  const workers = await startWorkers({ config, db, logger });
  const metricsServer =
    config.WORKER_METRICS_PORT === undefined
      ? undefined
      : await startMetricsServer(processMetrics(), config.WORKER_METRICS_PORT, config.METRICS_TOKEN, () =>
          workers.redisAnswers(),
        );
  logger.info({ queues: workers.workers.map((w) => w.name) }, 'workers running');
  onShutdown(logger, async () => {
    metricsServer?.close();
    await workers.stop();
    await db.close();
  });
}

void main();
