// `npm start`: the one-command default. Creates the database if missing, applies migrations, then runs
// the API and the workers in this one process. Production runs them apart (start:api, start:worker).
import { startApi } from '../api/server';
import { recordBreakerStates } from '../shared/payment-instructions/vendors/vendor-breakers';
import { processMetrics } from '../shared/platform/metrics';
import { boot, onShutdown } from '../shared/platform/process';
import { startWorkers } from '../worker/worker';

async function main(): Promise<void> {
  const { config, db, logger } = await boot('data-import', { migrate: true });
  const workers = await startWorkers({ config, db, logger });
  const metrics = processMetrics();
  // The workers run in this process, so their breakers are this API's to report.
  const api = await startApi({ config, db, logger, metrics, collectors: [() => recordBreakerStates(metrics.breakerState)] });
  logger.info({ port: api.port, queues: workers.workers.map((w) => w.name) }, 'data-import service ready');
  onShutdown(logger, async () => {
    await api.stop();
    await workers.stop();
    await db.close();
  });
}

void main();
