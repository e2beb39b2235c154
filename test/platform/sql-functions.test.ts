// The functions in the database are the ones the code defines (shared/platform/sql-function.ts): the
// migrations hold each function's query as text, and the code builds the same query from its parts
// (the account look-up, the run-ledger insert) which other statements share. When a part changes, this
// test fails and prints the migration that replaces the function. A function keeps the plan it made on
// its first call however large the tables grow, so no kept plan may read a table whole, even one made
// on empty, never-analysed tables. What the functions do is tested with their endpoints.
import { SQL_FUNCTIONS } from '../../shared/catalog/sql-functions';
import { definitionOf, FUNCTION_SETTINGS, sourceOf, type SqlFunction } from '../../shared/platform/sql-function';
import { openTestDb, type TestDb } from '../helpers/context';
import { explainFunctionOnFreshTables } from '../helpers/fresh-tables';

interface Migrated {
  args: string;
  returns: string;
  source: string;
  settings: string[] | null;
  language: string;
}

describe('functions planned once per connection', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
  });
  afterAll(() => t.db.close());

  const migrated = async (fn: SqlFunction): Promise<Migrated[]> =>
    (
      await t.db.pool.query<Migrated>(
        `SELECT pg_get_function_identity_arguments(p.oid) AS args, pg_get_function_result(p.oid) AS returns,
                p.prosrc AS source, p.proconfig AS settings, l.lanname AS language
           FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
          WHERE p.proname = $1 AND p.pronamespace = 'public'::regnamespace`,
        [fn.name],
      )
    ).rows;

  it.each(SQL_FUNCTIONS.map((fn) => [fn.name, fn] as const))('%s is migrated as the code defines it', async (_, fn) => {
    const found = await migrated(fn);
    const expected: Migrated = {
      args: fn.args.join(', '),
      returns: fn.returns,
      source: sourceOf(fn),
      settings: [...FUNCTION_SETTINGS],
      language: 'plpgsql',
    };
    if (found.length !== 1 || JSON.stringify(found[0]) !== JSON.stringify(expected)) {
      throw new Error(
        `the database's ${fn.name} is not the code's: add a migration (prisma/migrations/<timestamp>_<name>/migration.sql) with\n\n${definitionOf(fn)}`,
      );
    }
    expect(found).toEqual([expected]);
  });

  it.each(SQL_FUNCTIONS.map((fn) => [fn.name, fn] as const))(
    '%s keeps a plan that reads no table whole, made on empty unanalysed tables',
    async (_, fn) => {
      const { rows } = await t.db.pool.query<{ name: string }>(
        `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`,
      );
      const plan = await explainFunctionOnFreshTables(
        t.db.pool,
        rows.map((r) => r.name),
        fn,
      );
      expect(plan).toMatch(/Index|Insert|Update/);
      expect(plan).not.toMatch(/Seq Scan/);
    },
  );
});
