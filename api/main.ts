// Entry point of an API process: a child of `npm start`, or run apart in production (`npm run start:api`).
// Under `npm start` the supervisor has migrated already, so a (re)started child does not.
import cluster from 'node:cluster';
import { schemaSteps } from '../prisma/migrate';
import { workerPoolSize } from '../shared/catalog/jobs';
import { boot, onShutdown } from '../shared/platform/process';
import { startApi } from './server';

async function main(): Promise<void> {
  const { config, db, logger } = await boot('api', {
    schema: cluster.isWorker ? undefined : schemaSteps,
    workerPool: workerPoolSize,
  });
  const api = await startApi({ config, db, logger });
  logger.info({ port: api.port, staffPort: api.staff?.port }, 'api listening');
  onShutdown(logger, async () => {
    await api.stop();
    await db.close();
  });
}

void main();
