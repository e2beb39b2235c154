// Process lifecycle shared by the entry points: boot checks, then SIGTERM/SIGINT → graceful stop.
import { loadConfig, unconfiguredVendors, usesDevTokenSecret, type Config, type ProcessRole } from './config';
import { createDatabase, type Database } from './db';
import { createLogger, type Logger } from './logger';
import { budgetProblems } from './connection-budget';
import { checkPostgres, checkRedis, waitThroughStartup } from './preflight';
import { checkRedisEviction } from './redis-eviction';

/**
 * What a process that starts first does about the schema (prisma/migrate.ts `schemaSteps`): given by the
 * entry point, so this ground floor does not import the migrations above it.
 */
export interface SchemaSteps {
  /** `lockWaitMs`: the longest to wait for the migration lock while another process migrates. */
  migrate(databaseUrl: string, opts?: { lockWaitMs?: number }): Promise<unknown>;
  /** Why the schema is not this build's, or undefined when it is. */
  problem(databaseUrl: string): Promise<string | undefined>;
}

export interface Booted {
  config: Config;
  db: Database;
  logger: Logger;
}

/**
 * Parses config (as `opts.role` needs it: the API by default), checks PostgreSQL and Redis answer (and
 * that Redis never evicts keys), then, given `opts.schema` (the process that starts first, not a
 * supervised child): applies pending migrations, or with MIGRATE_ON_START=false only checks that none
 * is pending. A busy or refusing database (a pool full of other replicas migrating, too many
 * connections, a restart) and the migration lock are waited for, up to STARTUP_WAIT_MS in all. Exits
 * with one clear line if anything is wrong, or the wait runs out (saying what it waited on).
 */
export async function prepare(
  name: string,
  opts: { schema?: SchemaSteps; role?: ProcessRole; workerPool?: (config: Config) => number },
): Promise<Omit<Booted, 'db'>> {
  const role = opts.role ?? 'api';
  let config: Config;
  let evictionWarning: string | undefined;
  try {
    config = loadConfig(process.env, role);
    // The deployment's connection budget (given one worker process's pool: the catalog's, passed in).
    const overBudget = opts.workerPool ? budgetProblems(config, opts.workerPool(config)) : [];
    if (overBudget.length > 0) throw new Error(`Invalid configuration:\n  ${overBudget.join('\n  ')}`);
    const { schema } = opts;
    const migrates = schema !== undefined && config.MIGRATE_ON_START;
    const url = config.DATABASE_URL;
    const deadline = Date.now() + config.STARTUP_WAIT_MS;
    const left = () => Math.max(0, deadline - Date.now());
    // A missing database is created by the start-up migration; without one it is an error.
    await waitThroughStartup(left(), () => checkPostgres(url, { mayBeMissing: migrates }));
    await checkRedis(config);
    evictionWarning = await checkRedisEviction(config);
    if (migrates) await waitThroughStartup(left(), (lockWaitMs) => schema.migrate(url, { lockWaitMs }));
    else if (schema) {
      const problem = await waitThroughStartup(left(), () => schema.problem(url));
      if (problem !== undefined) throw new Error(problem);
    }
  } catch (err) {
    console.error(`${name}: ${(err as Error).message}`);
    process.exit(1);
  }
  const logger = createLogger(config.LOG_LEVEL, name);
  if (evictionWarning) logger.warn(evictionWarning);
  if (role === 'api' && usesDevTokenSecret(config))
    logger.warn('TOKEN_SECRET is the development default: set your own before real use');
  for (const vendor of unconfiguredVendors(config)) {
    logger.warn(
      { vendor },
      `${vendor} is not configured (STRIPE_SECRET_KEY): its payment instructions will answer 400 vendor_not_configured`,
    );
  }
  return { config, logger };
}

/** prepare(), then the process's database pool. */
export async function boot(
  name: string,
  opts: {
    schema?: SchemaSteps;
    role?: ProcessRole;
    poolSize?: (config: Config) => number;
    workerPool?: (config: Config) => number;
  },
): Promise<Booted> {
  const { config, logger } = await prepare(name, opts);
  const poolSize = opts.poolSize?.(config) ?? config.DB_POOL_SIZE;
  return { config, db: createDatabase({ ...config, DB_POOL_SIZE: poolSize }), logger };
}

export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}
