// Entry point of a worker process (`npm run start:worker`).
import { boot, onShutdown } from '../shared/platform/process';
import { startWorkers } from './worker';

async function main(): Promise<void> {
  const { config, db, logger } = await boot('worker', { migrate: true });
  const workers = await startWorkers({ config, db, logger });
  logger.info({ queues: workers.workers.map((w) => w.name) }, 'workers running');
  onShutdown(logger, async () => {
    await workers.stop();
    await db.close();
  });
}

void main();
