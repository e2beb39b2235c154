// Plans that cannot go stale (issue 22): with autovacuum off nothing analyses a table as it grows, so a
// statement whose plan was cached while the tables were small must not keep that plan (a sequential
// scan) once they hold a million rows. The service's own statements run on its own pools, one per
// DB_PREPARED_STATEMENTS setting (one connection each, so every call reuses whatever that connection
// cached), first on small tables, then
// after 1,000,000 transactions and 200,000 request rows were added behind its back by SQL. Which scans
// they made is read from pg_stat_xact_user_tables in the same transaction: counts, not timings.
import { Client } from 'pg';
import { dropDatabase, migrate } from '../../prisma/migrate';
import {
  createDatabase,
  inTransaction,
  type Database,
  type PreparedStatements,
  type Sql,
} from '../../shared/platform/db';
import { storeAnswers, lockUnanswered } from '../../shared/requests/request-result.repository';
import { findExistingTransactions } from '../../shared/transactions/transaction.repository';
import { testConfig, testDatabaseUrl } from '../helpers/context';

const TRANSACTIONS = 1_000_000;
const REQUESTS = 200_000;
const url = `${testDatabaseUrl}_plans`;

interface Scans {
  relname: string;
  seq_scan: string;
  idx_scan: string;
}

/** Scans of the two tables counted so far in this backend, not yet flushed to pg_stat_user_tables. */
async function scans(sql: Sql): Promise<Map<string, { seq: number; idx: number }>> {
  const { rows } = await sql.query<Scans>(
    `SELECT relname, seq_scan, coalesce(idx_scan, 0) AS idx_scan FROM pg_stat_xact_user_tables
      WHERE relname IN ('transactions', 'request_results')`,
  );
  return new Map(rows.map((r) => [r.relname, { seq: Number(r.seq_scan), idx: Number(r.idx_scan) }]));
}

/**
 * One group as the worker runs it: the result rows' lock, the existence look-up, the rows' update.
 * `size` transaction ids on each of two accounts (a 100-item group of 16 jobs: 1,600).
 */
async function group(db: Database, round: number, size = 10) {
  return inTransaction(db, async (sql) => {
    const before = await scans(sql);
    const ids = Array.from({ length: size }, (_, i) => `probe-${round}-${i}`);
    await lockUnanswered(sql, ids, { wait: false });
    await lockUnanswered(sql, ids.slice(0, 1), { wait: true });
    await findExistingTransactions(sql, [
      { accountId: 7, transactionIds: ids },
      { accountId: 8, transactionIds: ids },
    ]);
    await storeAnswers(
      sql,
      ids.map((id) => ({ id, httpStatus: 200, body: {}, errorCode: null })),
    );
    const after = await scans(sql);
    const delta = (t: string) => ({
      seq: (after.get(t)?.seq ?? 0) - (before.get(t)?.seq ?? 0),
      idx: (after.get(t)?.idx ?? 0) - (before.get(t)?.idx ?? 0),
    });
    return { transactions: delta('transactions'), requestResults: delta('request_results') };
  });
}

describe('plans of the hot statements after the tables grow without ANALYZE', () => {
  const modes: PreparedStatements[] = ['unnamed', 'named'];
  let admin: Client;
  const dbs = new Map<PreparedStatements, Database>();

  beforeAll(async () => {
    await dropDatabase(url);
    await migrate(url);
    admin = new Client({ connectionString: url });
    await admin.connect();
    // Off on these machines anyway; per table too, so no autovacuum run can analyse them mid-test.
    await admin.query('ALTER TABLE transactions SET (autovacuum_enabled = false)');
    await admin.query('ALTER TABLE request_results SET (autovacuum_enabled = false)');
    for (const mode of modes) {
      const db = createDatabase(testConfig({ DATABASE_URL: url, DB_POOL_SIZE: '1', DB_PREPARED_STATEMENTS: mode }));
      // Under load the service's connections are never idle for long; here the bulk load takes seconds,
      // and pg-pool would close the idle connection (and its cached plans) after 10 s.
      db.pool.options.idleTimeoutMillis = 0;
      dbs.set(mode, db);
    }
  }, 60_000);

  afterAll(async () => {
    for (const db of dbs.values()) await db.close();
    await admin?.end();
    await dropDatabase(url);
  });

  it('keeps the per-group look-up and the result-row lock on their indexes', async () => {
    // Small tables: enough executions on the one connection for a generic plan to be cached.
    for (const db of dbs.values()) for (let round = 0; round < 12; round++) await group(db, round);

    // Rows added behind the service's back, as a migration grows its tables (no ANALYZE follows).
    // Replica role: the loader's own session skips the foreign-key triggers the fake rows would fail.
    await admin.query('SET session_replication_role = replica');
    await admin.query(
      `INSERT INTO transactions (account_id, transaction_id, transaction_date, amount, type, submitted, request_id)
       SELECT g % 5000 + 1, 'bulk-' || g, DATE '2026-01-01', 1, 'PAYMENT', '{}', 'bulk'
         FROM generate_series(1, $1::int) AS g`,
      [TRANSACTIONS],
    );
    await admin.query(
      `INSERT INTO request_results (id, organisation_id, endpoint, body_hash, http_status, finished_at)
       SELECT 'bulk-' || g, 1, 'bulk', 'h', 200, now() FROM generate_series(1, $1::int) AS g`,
      [REQUESTS],
    );

    for (const mode of modes) {
      const grown = await group(dbs.get(mode)!, 100);
      expect({ mode, ...grown }).toEqual({
        mode,
        transactions: { seq: 0, idx: expect.any(Number) as number },
        requestResults: { seq: 0, idx: expect.any(Number) as number },
      });
      expect(grown.transactions.idx).toBeGreaterThan(0);
      expect(grown.requestResults.idx).toBeGreaterThan(0);
      // The group the 100-item shape piles up: thousands of pairs, where a plain join's estimate on the
      // unanalysed table chose a sequential scan and sort of all of it. (The result-row statements of
      // such a group still can: see docs/performance.md.)
      const large = await group(dbs.get(mode)!, 200, 1600);
      expect({ mode, transactions: large.transactions }).toEqual({
        mode,
        transactions: { seq: 0, idx: expect.any(Number) as number },
      });
    }
  }, 120_000);
});
