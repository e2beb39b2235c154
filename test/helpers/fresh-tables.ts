// EXPLAIN a statement against empty, never-analysed copies of the tables it reads (same columns and
// indexes), put in front of the real ones by a transaction-local search_path: the plan a small table
// that nothing has analysed gets, whatever other test files did to the worker's database before.
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';

export async function explainOnFreshTables(
  pool: Pool,
  tables: readonly string[],
  statement: { text: string; values?: unknown[] },
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
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, statement.values);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}
