// "No statement that scans a table because it is small": every statement of a transactions import's way
// through the database (the pending row, the group's lock of its request_results rows, the account lock,
// the duplicate look-up, the insert, the answers and the run ledger) is EXPLAINed on tables that grow
// with use — empty and never analysed, grown but not analysed (autovacuum off), and small but analysed —
// and none may read one of them with a sequential scan. The statements run through the repository
// functions themselves, on a connection that EXPLAINs instead of running, inside a transaction whose
// search_path puts empty copies of the tables (same indexes) in front of the real ones.
import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { SQL_FUNCTIONS } from '../../shared/catalog/sql-functions';
import type { Prepared, Sql } from '../../shared/platform/db';
import { callOf } from '../../shared/platform/sql-function';
import { insertPendingMany, lockUnanswered, storeAnswers } from '../../shared/requests/request-result.repository';
import { insertQueuedEntries } from '../../shared/runs/ledger.public';
import {
  findExistingTransactions,
  insertTransactions,
  lockAccounts,
} from '../../shared/transactions/transaction.repository';
import { openTestDb, type TestDb } from '../helpers/context';
import { genericPlanOf } from '../helpers/fresh-tables';

/** Tables that grow with use: a sequential scan of one is a cost that grows with it. */
const GROWING = [
  'request_results',
  'run_ledger',
  'transactions',
  'accounts',
  'account_import_processes',
  'statement_periods',
];
/** Looked up by the statements beside the growing ones; they stay small (suppliers and their organisations). */
const SMALL = ['organisation_suppliers', 'import_suppliers'];

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/**
 * The tables (or indexes) a plan reads whole: a sequential scan, or an index scan without an index
 * condition (a partial index read end to end, say that of pending request_results rows).
 */
function wholeReadsOf(node: PlanNode, parent?: PlanNode): string[] {
  const type = node['Node Type'];
  const table = node['Relation Name'] ?? parent?.['Relation Name'] ?? '?';
  const whole =
    type === 'Seq Scan' || (/Index( Only)? Scan$/.test(type) && node['Index Cond'] === undefined)
      ? [`${table} (${type}${node['Index Name'] ? ` on ${node['Index Name']}` : ''})`]
      : [];
  return [...whole, ...(node.Plans ?? []).flatMap((child) => wholeReadsOf(child, node))];
}

/**
 * A Sql that EXPLAINs each statement (with its values) instead of running it, and keeps the plans. A call
 * of a function planned once per connection is explained as the plan the function keeps.
 */
function explaining(client: PoolClient, plans: { text: string; plan: PlanNode }[]): Sql {
  return {
    async query(statement: string | Prepared, values?: unknown[]) {
      const text = typeof statement === 'string' ? statement : statement.text;
      const fn = SQL_FUNCTIONS.find((f) => callOf(f) === text);
      const [plan] = fn
        ? await genericPlanOf<[{ Plan: PlanNode }]>(client, fn, 'JSON')
        : (
            await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, values)
          ).rows.map((r) => r['QUERY PLAN']);
      plans.push({ text: fn ? fn.query : text, plan: plan![0].Plan });
      return { rows: [], rowCount: 0, command: '', oid: 0, fields: [] };
    },
  };
}

const GROUP = 64;

/** Every statement a group of GROUP imports runs, with what a burst and a group send. */
async function transactionsPath(sql: Sql): Promise<void> {
  const ids = Array.from({ length: GROUP }, () => randomUUID());
  const accounts = ids.map((_, i) => i + 1);
  await insertPendingMany(
    sql,
    ids.map((id, i) => ({
      id,
      organisationId: 1,
      accountId: accounts[i]!,
      runId: null,
      endpoint: 'transactions/create',
      idempotencyKey: null,
      bodyHash: 'h',
    })),
    ids[0]!,
  );
  for (const wait of [true, false]) {
    await lockUnanswered(sql, ids, { wait });
    await lockAccounts(
      sql,
      accounts.map((accountId) => ({ accountId, organisationId: 1, supplierCode: 'S' })),
      { wait },
    );
  }
  await findExistingTransactions(
    sql,
    accounts.map((accountId) => ({ accountId, transactionIds: ['T-1', 'T-2'] })),
  );
  const submitted = { transaction_id: 'T-1', amount: '1.00', type: 'PAYMENT' };
  await insertTransactions(
    sql,
    accounts.map((accountId, i) => ({
      accountId,
      resultId: ids[i]!,
      rows: [{ transactionId: 'T-1', transactionDate: '2019-10-04', originalDate: null, description: null, submitted }],
    })),
  );
  await storeAnswers(
    sql,
    ids.map((id) => ({ id, httpStatus: 201, body: { results: [] }, errorCode: null })),
  );
  await insertQueuedEntries(
    sql,
    ids.map((requestId) => ({
      requestId,
      endpoint: 'transactions/create',
      httpStatus: 201,
      subject: { supplierCode: 'S', externalAccountNumber: 'E', items: 1, dryRun: false, listField: 'transactions' },
      entries: [{ outcome: 'written', code: null, attr: null, items: 1 }],
    })),
  );
}

/** Rows in every growing copy (no ANALYZE): what a table holds after a while of use, half its requests pending. */
async function grow(client: PoolClient, rows: number): Promise<void> {
  await client.query(
    `INSERT INTO account_import_processes (supplier_code, external_account_number, state)
       SELECT 'S', 'E-' || g, 'IMPORTED' FROM generate_series(1, $1) g;
     INSERT INTO accounts (id, process_id, platform_account_number)
       SELECT g, g, 'P-' || g FROM generate_series(1, $1) g;
     INSERT INTO statement_periods (account_id, starts_on) SELECT g, '2019-10-01' FROM generate_series(1, $1) g;
     INSERT INTO request_results (id, organisation_id, endpoint, body_hash, account_id, http_status, finished_at)
       SELECT 'R-' || g, 1, 'transactions/create', 'h', g, 201, CASE WHEN g % 2 = 0 THEN now() END
         FROM generate_series(1, $1) g;
     INSERT INTO run_ledger (organisation_id, request_id, endpoint, http_status, outcome, items)
       SELECT 1, 'R-' || g, 'transactions/create', 201, 'added', 1 FROM generate_series(1, $1) g;
     INSERT INTO transactions (account_id, transaction_id, transaction_date, amount, type, submitted, request_id)
       SELECT g % 500 + 1, 'T-' || g, '2019-10-04', 1, 'PAYMENT', '{}', 'R-' || g FROM generate_series(1, $1) g;`.replaceAll(
      '$1',
      String(rows),
    ),
  );
}

describe('the transactions path reads growing tables by index only', () => {
  let t: TestDb;

  beforeAll(async () => {
    t = await openTestDb();
  });
  afterAll(() => t.db.close());

  it.each([
    ['empty, never analysed', 0, false],
    ['grown, not analysed', 5000, false],
    ['grown, analysed', 5000, true],
  ])('%s', async (_what, rows, analysed) => {
    const client = await t.db.pool.connect();
    try {
      await client.query('BEGIN');
      const schema = `scan_${randomUUID().replaceAll('-', '')}`;
      await client.query(`CREATE SCHEMA ${schema}`);
      for (const table of [...GROWING, ...SMALL]) {
        await client.query(`CREATE TABLE ${schema}.${table} (LIKE public.${table} INCLUDING ALL)`);
      }
      await client.query(`SET LOCAL search_path = ${schema}, public`);
      await grow(client, rows);
      if (analysed) await client.query(GROWING.map((table) => `ANALYZE ${schema}.${table}`).join('; '));
      const plans: { text: string; plan: PlanNode }[] = [];

      await transactionsPath(explaining(client, plans));

      if (process.env.SHOW_PLANS) console.log(JSON.stringify(plans, null, 1));
      expect(plans.length).toBeGreaterThanOrEqual(9);
      const scans = plans.flatMap(({ text, plan }) =>
        wholeReadsOf(plan)
          .filter((read) => GROWING.includes(read.split(' ')[0]!))
          .map((read) => `${read} in: ${text.replace(/\s+/g, ' ').slice(0, 100)}`),
      );
      expect(scans).toEqual([]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
