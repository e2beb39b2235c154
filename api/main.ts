// Entry point of an API process (production runs it apart from the workers: `npm run start:api`).
import { boot, onShutdown } from '../shared/platform/process';
import { startApi } from './server';

async function main(): Promise<void> {
  const { config, db, logger } = await boot('api', { migrate: true });
  const api = await startApi({ config, db, logger });
  logger.info({ port: api.port, staffPort: api.staff?.port }, 'api listening');
  onShutdown(logger, async () => {
    await api.stop();
    await db.close();
  });
}

void main();
