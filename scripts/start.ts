// `npm start`: the one-command default. Creates the database if missing, applies migrations, then runs
// the API and the workers in this one process. Production runs them apart (start:api, start:worker).
// package.json runs it compiled (dist/scripts/start.js, built by scripts/build.js) rather than
// through tsx, whose loader costs ~50 MB of memory.
import { startApi } from '../api/server';
import { recordBreakerStates } from '../shared/payment-instructions/vendors/vendor-breakers';
import { createDatabase } from '../shared/platform/db';
import { workerPoolSize } from '../shared/platform/jobs';
import { processMetrics } from '../shared/platform/metrics';
import { boot, onShutdown } from '../shared/platform/process';
import { startWorkers } from '../worker/worker';

async function main(): Promise<void> {
  const { config, db, logger } = await boot('data-import', { migrate: true });
  // The workers get a pool of their own, as they have when they run apart: every running job holds a
  // connection for its whole transaction, and WORKER_CONCURRENCY of them sharing the API's pool left
  // the API's lookups queueing behind them (measured: 66 against 101 requests/s of transactions).
  const workerDb = createDatabase({ ...config, DB_POOL_SIZE: workerPoolSize(config) });
  const workers = await startWorkers({ config, db: workerDb, logger });
  const metrics = processMetrics();
  // The workers run in this process, so their breakers are this API's to report.
  const api = await startApi({ config, db, logger, metrics, collectors: [() => recordBreakerStates(metrics.breakerState)] });
  logger.info({ port: api.port, staffPort: api.staff?.port, queues: workers.workers.map((w) => w.name) }, 'data-import service ready');
  onShutdown(logger, async () => {
    await api.stop();
    await workers.stop();
    await Promise.all([db.close(), workerDb.close()]);
  });
}

void main();
