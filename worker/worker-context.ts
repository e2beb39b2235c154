// What every processor is given: a file of its own so that processors can name it without importing
// processors/index.ts, which imports them.
import type { Config } from '../shared/platform/config';
import type { Database } from '../shared/platform/db';
import type { Logger } from '../shared/platform/logger';

export interface WorkerContext {
  config: Config;
  db: Database;
  logger: Logger;
}
