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

export async function explainOnFreshTables(
  pool: Pool,
  tables: readonly string[],
  statement: { text: string; values?: unknown[] },
): Promise<string> {
  return onFreshTables(pool, tables, async (client) => {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, statement.values);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}

/**
 * The plan a function's query keeps inside the function (shared/platform/sql-function.ts): its generic
 * plan, prepared with the function's argument types under the function's settings (set back after). A generic plan does not depend on the values, so it is explained with none.
 */
export async function genericPlanOf<T = string>(
  client: PoolClient,
  fn: SqlFunction,
  format: 'TEXT' | 'JSON' = 'TEXT',
): Promise<T[]> {
  const settings = FUNCTION_SETTINGS.map((s) => s.split('=') as [string, string]);
  const set = (name: string, value: string) =>
    client.query<{ was: string }>('SELECT current_setting($1) AS was, set_config($1, $2, true)', [name, value]);
  const before = await Promise.all(
    settings.map(async ([name, value]) => [name, (await set(name, value)).rows[0]!.was]),
  );
  const prepared = `plan_${randomUUID().replaceAll('-', '')}`;
  await client.query(`PREPARE ${prepared}(${fn.args.join(', ')}) AS ${fn.query}`);
  const nulls = fn.args.map(() => 'NULL').join(', ');
  const { rows } = await client.query<{ 'QUERY PLAN': T }>(`EXPLAIN (FORMAT ${format}) EXECUTE ${prepared}(${nulls})`);
  await client.query(`DEALLOCATE ${prepared}`);
  for (const [name, was] of before) await set(name!, was!);
  return rows.map((r) => r['QUERY PLAN']);
}

/** genericPlanOf on empty, never-analysed copies of `tables`. */
export async function explainFunctionOnFreshTables(
  pool: Pool,
  tables: readonly string[],
  fn: SqlFunction,
): Promise<string> {
  return onFreshTables(pool, tables, async (client) => (await genericPlanOf(client, fn)).join('\n'));
}
