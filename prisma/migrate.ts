// Applies prisma/migrations/*/migration.sql in order and records each in `_prisma_migrations` with the
// same columns and sha256 checksum as `prisma migrate deploy`, so either tool can take over from the
// other. Needed because the Prisma migrate engine cannot be downloaded on our machines.
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';

const MIGRATIONS_DIR = path.join(__dirname, 'migrations');
// Any fixed number: serialises concurrent runners (API and worker starting together).
const MIGRATION_LOCK_KEY = 72_240_311;

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

/** Runs `fn` on the server's `postgres` database with the name of the database the URL names. */
async function onServer<T>(
  databaseUrl: string,
  fn: (admin: Client, name: string, quoted: string) => Promise<T>,
): Promise<T> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    return await fn(admin, name, '"' + name.replaceAll('"', '""') + '"');
  } finally {
    await admin.end();
  }
}

/** Creates the database named in the URL when it does not exist yet. */
export function ensureDatabase(databaseUrl: string): Promise<boolean> {
  return onServer(databaseUrl, async (admin, name, quoted) => {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await admin.query(`CREATE DATABASE ${quoted}`);
    } catch (err) {
      // Another process created it between our check and our CREATE: 42P04 once it exists, 23505
      // when both CREATEs race on the catalog's unique index.
      const code = (err as { code?: string }).code;
      if (code !== '42P04' && code !== '23505') throw err;
    }
    return true;
  });
}

/** Drops the database named in the URL (its sessions ended), for the bench and the rehearsal. */
export function dropDatabase(databaseUrl: string): Promise<void> {
  return onServer(databaseUrl, async (admin, _name, quoted) => {
    await admin.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
  });
}

async function listMigrations(): Promise<{ name: string; sql: string; checksum: string }[]> {
  const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(MIGRATIONS_DIR, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/**
 * Whether `migrate` has anything to do: one connection and one read, against migrate's second
 * connection, advisory lock and DDL. A database that does not exist yet, or has never been migrated,
 * has pending migrations; a changed migration counts as pending so migrate reports it.
 */
export async function hasPendingMigrations(databaseUrl: string): Promise<boolean> {
  const client = new Client({ connectionString: databaseUrl });
  try {
    await client.connect();
  } catch (err) {
    if ((err as { code?: string }).code === '3D000') return true; // invalid_catalog_name: no such database
    throw err;
  }
  try {
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    return (await listMigrations()).some((m) => applied.get(m.name) !== m.checksum);
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return true; // undefined_table: never migrated
    throw err;
  } finally {
    await client.end();
  }
}

export async function migrate(databaseUrl: string): Promise<MigrationReport> {
  await ensureDatabase(databaseUrl);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const done = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations"
        WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Map(done.rows.map((r) => [r.migration_name, r.checksum]));
    const report: MigrationReport = { applied: [], alreadyApplied: 0 };
    for (const m of await listMigrations()) {
      const checksum = applied.get(m.name);
      if (checksum !== undefined) {
        if (checksum !== m.checksum) {
          throw new Error(`Migration ${m.name} was changed after it was applied (checksum differs).`);
        }
        report.alreadyApplied += 1;
        continue;
      }
      // Each migration and its record commit together: a failed migration leaves no trace.
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), now(), 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      report.applied.push(m.name);
    }
    return report;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

if (require.main === module) {
  const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/data_import';
  migrate(url).then(
    (r) => console.log(JSON.stringify(r)),
    (err: Error) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
