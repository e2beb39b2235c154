// `npm start`: the one-command default. Creates the database if missing and applies migrations once
// (with MIGRATE_ON_START=false it only checks that none is pending), then supervises API_PROCESSES API
// children and WORKER_PROCESSES worker children (node:cluster: the API children share the port). A
// child that dies is logged and restarted with a back-off; SIGTERM stops every child gracefully.
// package.json runs it compiled (dist/scripts/start.js, built by scripts/build.js) rather than through
// tsx, whose loader costs ~50 MB of memory in every process.
import path from 'node:path';
import { schemaSteps } from '../prisma/migrate';
import { workerPoolSize } from '../shared/catalog/jobs';
import { onShutdown, prepare } from '../shared/platform/process';
import { supervise } from '../shared/platform/supervisor';
import { startBanner } from './start-banner';

// The children run the same way as this file: compiled .js from dist/, or .ts under tsx (whose
// loader node:cluster passes on through execArgv).
const entry = (file: string) => path.join(__dirname, '..', `${file}${path.extname(__filename)}`);

async function main(): Promise<void> {
  const { config, logger } = await prepare('data-import', { schema: schemaSteps, workerPool: workerPoolSize });
  const execArgv = config.CHILD_SEMI_SPACE_MB > 0 ? [`--max-semi-space-size=${config.CHILD_SEMI_SPACE_MB}`] : [];
  const children = supervise(
    [
      { role: 'api', exec: entry('api/main'), count: config.API_PROCESSES, execArgv },
      { role: 'worker', exec: entry('worker/main'), count: config.WORKER_PROCESSES, execArgv },
    ],
    logger,
  );
  logger.info(
    { port: config.PORT, api: config.API_PROCESSES, workers: config.WORKER_PROCESSES },
    'data-import service supervising',
  );
  process.stderr.write(startBanner(config));
  onShutdown(logger, () => children.stop());
}

void main();
