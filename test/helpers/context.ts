// Each jest worker gets its own database (data_import_test_<worker>), migrated once per process, and
// each test file its own queue prefix and its own uniquely named suppliers, so tests never see each
// other's data and can run while `npm start` runs. TEST_DB_PREFIX names another set of databases, for
// two checkouts whose migrations differ running their tests on one machine.
import { randomBytes } from 'node:crypto';
import { migrate } from '../../prisma/migrate';
import { loadConfig, type Config } from '../../shared/platform/config';
import { createDatabase, type Database } from '../../shared/platform/db';
import { createLogger, type Logger } from '../../shared/platform/logger';

const PG_BASE = process.env.TEST_PG_BASE_URL ?? 'postgresql://postgres@127.0.0.1:5432';

const DB_PREFIX = process.env.TEST_DB_PREFIX ?? 'data_import_test';

export const testDatabaseUrl = `${PG_BASE}/${DB_PREFIX}_${process.env.JEST_WORKER_ID ?? '0'}`;

let migrated: Promise<unknown> | undefined;

export function uniqueSuffix(): string {
  return randomBytes(4).toString('hex').toUpperCase();
}

export function testConfig(overrides: Partial<Record<keyof Config, string>> = {}): Config {
  return loadConfig({
    DATABASE_URL: testDatabaseUrl,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    QUEUE_PREFIX: `{test-${uniqueSuffix()}}`,
    TOKEN_SECRET: 'test-secret-that-is-long-enough-for-hs256-keys',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...overrides,
  });
}

export interface TestDb {
  config: Config;
  db: Database;
  logger: Logger;
}

export async function openTestDb(overrides: Partial<Record<keyof Config, string>> = {}): Promise<TestDb> {
  migrated ??= migrate(testDatabaseUrl);
  await migrated;
  const config = testConfig(overrides);
  return { config, db: createDatabase(config), logger: createLogger(config.LOG_LEVEL, 'test') };
}
