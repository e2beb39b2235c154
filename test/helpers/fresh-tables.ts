// EXPLAIN a statement against empty, never-analysed copies of the tables it reads (same columns and
// indexes), put in front of the real ones by a transaction-local search_path: the plan a small table
// that nothing has analysed gets, whatever other test files did to the worker's database before.
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { FUNCTION_SETTINGS, type SqlFunction } from '../../shared/platform/sql-function';

async function onFreshTables(
  pool: Pool,
  tables: readonly string[],
  explain: (client: PoolClient) => Promise<string>,
): Promise<string> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const schema = `fresh_${randomUUID().replaceAll('-', '')}`;
    await client.query(`CREATE SCHEMA ${schema}`);
    for (const table of tables) {
      await client.query(`CREATE TABLE ${schema}.${table} (LIKE public.${table} INCLUDING ALL)`);
    }
    await client.query(`SET LOCAL search_path = ${schema}, public`);
    return await explain(client);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

const planOf = (rows: { 'QUERY PLAN': string }[]) => rows.map((r) => r['QUERY PLAN']).join('\n');

export async function explainOnFreshTables(
  pool: Pool,
  tables: readonly string[],
  statement: { text: string; values?: unknown[] },
): Promise<string> {
  return onFreshTables(pool, tables, async (client) =>
    planOf((await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, statement.values)).rows),
  );
}

/**
 * The plan a write function's query keeps inside the function (shared/platform/sql-function.ts): its
 * generic plan, prepared with the function's argument types under the function's settings. A generic
 * plan does not depend on the values, so it is explained with none.
 */
export async function explainFunctionOnFreshTables(
  pool: Pool,
  tables: readonly string[],
  fn: SqlFunction,
): Promise<string> {
  const prepared = `plan_${randomUUID().replaceAll('-', '')}`;
  return onFreshTables(pool, tables, async (client) => {
    for (const [name, value] of FUNCTION_SETTINGS.map((s) => s.split('='))) {
      await client.query('SELECT set_config($1, $2, true)', [name, value]);
    }
    await client.query(`PREPARE ${prepared}(${fn.args.join(', ')}) AS ${fn.query}`);
    const nulls = fn.args.map(() => 'NULL').join(', ');
    const plan = planOf((await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${prepared}(${nulls})`)).rows);
    await client.query(`DEALLOCATE ${prepared}`);
    return plan;
  });
}
