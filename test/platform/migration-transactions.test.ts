// Every migration is applied inside one transaction under the migration lock (what keeps concurrent
// runners through a pooler safe), so a migration PostgreSQL cannot run in a transaction is refused
// before anything is applied, with the way out.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listMigrations, outsideTransactionOnly } from '../../prisma/migrate';

describe('migrations that cannot run inside a transaction', () => {
  it('finds the statements PostgreSQL refuses in a transaction block', () => {
    expect(outsideTransactionOnly('CREATE INDEX CONCURRENTLY "a_b" ON "a" ("b");')).toBe('CONCURRENTLY');
    expect(outsideTransactionOnly('create unique index concurrently x on y (z);')).toBe('concurrently');
    expect(outsideTransactionOnly('DROP INDEX CONCURRENTLY x;')).toBe('CONCURRENTLY');
    expect(outsideTransactionOnly('VACUUM ANALYZE "accounts";')).toBe('VACUUM');
    expect(outsideTransactionOnly('ALTER SYSTEM SET work_mem = 1;')).toBe('ALTER SYSTEM');
  });

  it('ignores the words in comments, strings, quoted names and function bodies', () => {
    const sql = [
      '-- built CONCURRENTLY by hand before the deploy',
      '/* VACUUM later */',
      `COMMENT ON TABLE "a" IS 'vacuum nightly';`,
      'CREATE TABLE "concurrently" ("id" INT);',
      'CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM 1; /* VACUUM */ END $$;',
      'CREATE INDEX IF NOT EXISTS "a_b" ON "a" ("b");',
    ].join('\n');
    expect(outsideTransactionOnly(sql)).toBeUndefined();
  });

  it('passes every migration of this build', async () => {
    expect((await listMigrations()).length).toBeGreaterThan(0);
  });

  it('refuses a migration folder holding one, naming the migration and the statement', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    try {
      await mkdir(path.join(dir, '20990101000000_index'));
      await writeFile(
        path.join(dir, '20990101000000_index', 'migration.sql'),
        'CREATE INDEX CONCURRENTLY "a_b" ON "a" ("b");\n',
      );
      await expect(listMigrations(dir)).rejects.toThrow(
        /Migration 20990101000000_index uses CONCURRENTLY, which PostgreSQL cannot run inside the transaction that applies a migration/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
