// One pg pool per process, shared by Prisma (through the driver adapter) and by the hot paths that run
// plain SQL on pg: lists stream rows, and the busy endpoints' lookups and set-based writes skip
// Prisma's per-query work (measured: a one-row lookup costs ~0.05 ms of CPU on pg, ~0.37 ms through
// Prisma's raw API; a 100-row insert ~0.6 ms against ~2.6 ms).
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool, type QueryResult, type QueryResultRow } from 'pg';
import { PrismaClient } from '../generated/prisma/client';
import type { Config } from './config';
import { CommitOutcomeUnknown } from './errors';
import { isDatabaseUnavailable } from './pg-errors';

/** The client or an interactive-transaction client: repositories accept either. */
export type DbClient = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

/**
 * A hot statement, named. Whether the name reaches PostgreSQL is configuration
 * (DB_PREPARED_STATEMENTS, see createDatabase): a named statement is parsed once per connection, but
 * PostgreSQL may then cache a generic plan made while the tables were small and keep it as they grow
 * to millions of rows (nothing re-plans it while autovacuum is off and no ANALYZE runs: issue 22
 * measured 130–210 ms sequential scans in place of ~1 ms index look-ups).
 */
export interface Prepared {
  name: string;
  text: string;
}

/** Plain SQL with $1… parameters: the pool, or the connection of an `inTransaction` callback. */
export interface Sql {
  query<R extends QueryResultRow = QueryResultRow>(
    statement: string | Prepared,
    values?: unknown[],
  ): Promise<QueryResult<R>>;
}

/**
 * The same SQL on either kind of client, so steps that also run inside a Prisma interactive
 * transaction (next to work written against Prisma) are written once. Through Prisma, `rowCount` is
 * the number of rows returned and int8 columns come back as bigint: select what you need to count.
 */
export function asSql(client: Sql | DbClient): Sql {
  if ('query' in client) return client;
  return {
    async query<R extends QueryResultRow>(statement: string | Prepared, values: unknown[] = []) {
      const rows = await client.$queryRawUnsafe<R[]>(
        typeof statement === 'string' ? statement : statement.text,
        ...values,
      );
      return { rows, rowCount: rows.length, command: '', oid: 0, fields: [] };
    },
  };
}

export type PreparedStatements = Config['DB_PREPARED_STATEMENTS'];

export interface Database {
  prisma: PrismaClient;
  pool: Pool;
  preparedStatements: PreparedStatements;
  close(): Promise<void>;
}

/** A statement config without its name: sent as PostgreSQL's unnamed statement. Cursors pass as they are. */
function unnamed(config: unknown): unknown {
  if (typeof config !== 'object' || config === null || !('name' in config) || 'submit' in config) return config;
  const { name: _name, ...rest } = config;
  return rest;
}

/**
 * Makes every query of this connection go out unnamed: PostgreSQL then parses and plans each one
 * with its own values (an unnamed statement never reaches the generic-plan cache), and a
 * transaction-mode pooler, which may hand each transaction another server connection, can carry it.
 * Prisma's adapter sends unnamed statements already (it names them only given a statementNameGenerator).
 */
function sendUnnamed(client: { query: (...args: never[]) => unknown }): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = (config: unknown, ...rest: unknown[]) => query(unnamed(config), ...rest);
}

export function createDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DB_POOL_SIZE'> &
    Partial<Pick<Config, 'DB_ACQUIRE_TIMEOUT_MS' | 'DB_PREPARED_STATEMENTS'>>,
): Database {
  const preparedStatements = config.DB_PREPARED_STATEMENTS ?? 'unnamed';
  const pool = new Pool({
    connectionString: config.DATABASE_URL,
    max: config.DB_POOL_SIZE,
    // A request that cannot get a connection in this time fails (503 database_busy) instead of
    // queueing behind connections that some other caller holds for ever.
    connectionTimeoutMillis: config.DB_ACQUIRE_TIMEOUT_MS,
  });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  if (preparedStatements === 'unnamed') pool.on('connect', sendUnnamed);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    pool,
    preparedStatements,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

// pg-pool's message when connectionTimeoutMillis passes without a free connection; Prisma's adapter
// passes the same error on, possibly wrapped (hence the walk along `cause`).
const ACQUIRE_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

/** True when `err` (or what it wraps) is the pool giving up on finding a free connection. */
export function isPoolAcquireTimeout(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current.message.includes(ACQUIRE_TIMEOUT_MESSAGE)) return true;
    current = current.cause;
  }
  return false;
}

/**
 * Runs `work` in one READ COMMITTED transaction on a pooled connection: committed when it returns,
 * rolled back when it throws. Its statements time out after `timeoutMs` (a lock never waits forever).
 */
export async function inTransaction<T>(db: Database, work: (sql: Sql) => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const client = await db.pool.connect();
  // A checked-out connection whose server goes away emits 'error' besides failing the query in
  // flight; without a listener that event would crash the process. The query's rejection is the signal.
  const ignore = () => undefined;
  client.on('error', ignore);
  try {
    // One round trip for all: a simple-protocol query may hold several statements. Named statements
    // are planned with their values here too (see Prepared): a stale generic plan costs far more
    // than planning a statement of the transaction again.
    const plans = db.preparedStatements === 'named' ? '; SET LOCAL plan_cache_mode = force_custom_plan' : '';
    // JIT off: estimates on unanalysed tables can pass jit_above_cost for a group's index probes, and
    // compiling then costs more than the statement (99 against 32 ms for a 3,200-pair look-up).
    await client.query(`BEGIN; SET LOCAL statement_timeout = ${Math.round(timeoutMs)}; SET LOCAL jit = off${plans}`);
    const result = await work(client);
    // A connection lost here leaves the outcome unknown: say so, so the caller is told to resend.
    await client.query('COMMIT').catch((err: unknown) => {
      throw isDatabaseUnavailable(err) ? new CommitOutcomeUnknown(err) : err;
    });
    client.off('error', ignore);
    client.release();
    return result;
  } catch (err) {
    // A connection that cannot even roll back is broken: it is destroyed, not returned to the pool.
    const broken = await client.query('ROLLBACK').then(
      () => undefined,
      (rollbackErr: Error) => rollbackErr,
    );
    client.off('error', ignore);
    client.release(broken);
    throw err;
  }
}
