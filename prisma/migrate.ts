// Applies prisma/migrations/*/migration.sql in order and records each in `_prisma_migrations` with the
// same columns and sha256 checksum as `prisma migrate deploy`, so either tool can take over from the
// other. Needed because the Prisma migrate engine cannot be downloaded on our machines.
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import { databaseName, describeConnectFailure, isMissingDatabase } from '../shared/platform/pg-errors';

const MIGRATIONS_DIR = path.join(__dirname, 'migrations');
// Any fixed number. Taken with pg_advisory_xact_lock inside each transaction that creates the
// migrations table or applies a migration, so runners (API and worker replicas starting together)
// take turns. A transaction-scoped lock holds through a transaction-mode pooler (PgBouncer), which
// keeps one server connection for the whole transaction; a session lock would not (the pooler may
// run the lock, the migration and the unlock on three different server connections).
const MIGRATION_LOCK_KEY = 72_240_311;

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`;

const APPLIED = `SELECT migration_name, checksum FROM "_prisma_migrations"
  WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

const codeOf = (err: unknown) => (err as { code?: string } | undefined)?.code;

/** Runs `fn` on the server's `postgres` database with the name of the database the URL names. */
async function onServer<T>(
  databaseUrl: string,
  fn: (admin: Client, name: string, quoted: string) => Promise<T>,
): Promise<T> {
  const url = new URL(databaseUrl);
  const name = databaseName(databaseUrl);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    return await fn(admin, name, '"' + name.replaceAll('"', '""') + '"');
  } finally {
    await admin.end();
  }
}

/**
 * Creates the database named in the URL when it does not exist yet. The database itself is tried
 * first, so when it exists nothing else is needed: the server's `postgres` database is used only to
 * create a missing one (a pooler that lists only the service's database, or a role without CREATEDB,
 * then gets a sentence saying to create it by hand).
 */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const probe = new Client({ connectionString: databaseUrl });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return false;
  } catch (err) {
    if (!isMissingDatabase(err)) throw new Error(describeConnectFailure(err, databaseUrl), { cause: err });
  } finally {
    await probe.end().catch(() => undefined);
  }
  const created = await onServer(databaseUrl, async (admin, name, quoted) => {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await admin.query(`CREATE DATABASE ${quoted}`);
    } catch (err) {
      // Another process created it between our check and our CREATE: 42P04 once it exists, 23505
      // when both CREATEs race on the catalog's unique index.
      const code = codeOf(err);
      if (code !== '42P04' && code !== '23505') throw err;
    }
    return true;
  }).catch((err: unknown) => {
    const name = databaseName(databaseUrl);
    throw new Error(
      `database "${name}" does not exist, and creating it through the server's "postgres" database failed (${(err as Error).message}): create it as its owner (CREATE DATABASE "${name}" OWNER <owner role>), then run \`npm run migrate\``,
      { cause: err },
    );
  });
  return created;
}

/** Drops the database named in the URL (its sessions ended), for the bench and the rehearsal. */
export function dropDatabase(databaseUrl: string): Promise<void> {
  return onServer(databaseUrl, async (admin, _name, quoted) => {
    await admin.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
  });
}

// Statements PostgreSQL refuses inside a transaction block. Every migration is applied in one
// transaction together with its record and under the migration lock, which is what makes concurrent
// runners through a pooler safe, so a migration holding one of these is refused before anything runs.
const OUTSIDE_TRANSACTION_ONLY =
  /\b(CONCURRENTLY|VACUUM|(CREATE|DROP)\s+DATABASE|ALTER\s+SYSTEM|(CREATE|DROP)\s+TABLESPACE)\b/i;

/**
 * The statement keyword in `sql` that cannot run inside a transaction, if any. Comments, quoted
 * strings and identifiers, and dollar-quoted bodies are left out of the search.
 */
export function outsideTransactionOnly(sql: string): string | undefined {
  const code = sql
    .replace(/\$([A-Za-z_]{0,63})\$[\s\S]*?\$\1\$/g, ' ')
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, ' ')
    .replace(/"(?:[^"]|"")*"/g, ' ');
  return OUTSIDE_TRANSACTION_ONLY.exec(code)?.[1];
}

/** The migration files in order, each checked to be appliable inside one transaction. */
export async function listMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      const refused = outsideTransactionOnly(sql);
      if (refused !== undefined) {
        throw new Error(
          `Migration ${name} uses ${refused.toUpperCase()}, which PostgreSQL cannot run inside the transaction that applies a migration under the migration lock: write it so it runs in a transaction (docs/deployment.md "Migrations")`,
        );
      }
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/** Applied migrations by name with their checksums; undefined when the database was never migrated. */
async function readApplied(client: Client): Promise<Map<string, string> | undefined> {
  try {
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(APPLIED);
    return new Map(rows.map((r) => [r.migration_name, r.checksum]));
  } catch (err) {
    if (codeOf(err) === '42P01') return undefined; // undefined_table: never migrated
    throw err;
  }
}

/**
 * Runs `work` in a transaction that first takes the migration lock, waiting at most `lockWaitMs` for it
 * (then 55P03 lock_not_available, which start-up reports as the migration lock); commits when it returns.
 * The migration's own statements wait for their locks without that bound.
 */
async function underMigrationLock<T>(client: Client, lockWaitMs: number, work: () => Promise<T>): Promise<T> {
  const wait = Math.max(1, Math.round(lockWaitMs));
  await client.query(
    `BEGIN; SET LOCAL lock_timeout = ${wait}; SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}); SET LOCAL lock_timeout = 0`,
  );
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

function changed(name: string): Error {
  return new Error(`Migration ${name} was changed after it was applied (checksum differs).`);
}

export interface SchemaStatus {
  /** This build's migrations not applied to the database, in order. */
  pending: string[];
  /** Applied migrations whose file differs now. */
  changed: string[];
  /** The newest migration applied, of those this build knows. */
  current?: string;
}

/** Where the database stands against this build's migrations: one connection, reads only. */
export async function schemaStatus(databaseUrl: string): Promise<SchemaStatus> {
  const client = new Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    if (isMissingDatabase(err)) return { pending: (await listMigrations()).map((m) => m.name), changed: [] };
    throw new Error(describeConnectFailure(err, databaseUrl), { cause: err });
  }
  try {
    const applied = (await readApplied(client)) ?? new Map<string, string>();
    const status: SchemaStatus = { pending: [], changed: [] };
    for (const m of await listMigrations()) {
      const checksum = applied.get(m.name);
      if (checksum === undefined) status.pending.push(m.name);
      else if (checksum !== m.checksum) status.changed.push(m.name);
      else status.current = m.name;
    }
    return status;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Whether `migrate` has anything to do. A database that does not exist yet, or has never been
 * migrated, has pending migrations; a changed migration counts as pending so migrate reports it.
 */
export async function hasPendingMigrations(databaseUrl: string): Promise<boolean> {
  const status = await schemaStatus(databaseUrl);
  return status.pending.length > 0 || status.changed.length > 0;
}

/**
 * What a process started with MIGRATE_ON_START=false checks instead of migrating: every migration of
 * this build applied unchanged. Undefined when so, else one sentence saying what to run.
 */
export async function schemaProblem(databaseUrl: string): Promise<string | undefined> {
  const status = await schemaStatus(databaseUrl);
  if (status.changed.length > 0) {
    return `migration ${status.changed[0]} was changed after it was applied (checksum differs): this build does not match the database`;
  }
  if (status.pending.length === 0) return undefined;
  const at = status.current === undefined ? 'has never been migrated' : `is at migration ${status.current}`;
  return `the database ${at}; this build expects ${status.pending.at(-1)} (${status.pending.length} pending, MIGRATE_ON_START=false): run \`npm run migrate\` as the owner role first`;
}

/**
 * Creates the database when missing, then applies every pending migration once. Reads first: when
 * nothing is pending it runs no DDL and takes no lock, so a role limited to reading and writing rows
 * can run it. Each pending migration is applied in its own transaction, which takes the migration lock,
 * checks again that no other runner applied it meanwhile, runs it and records it, and commits.
 */
export async function migrate(databaseUrl: string, opts: { lockWaitMs?: number } = {}): Promise<MigrationReport> {
  // By default (`npm run migrate`) as long as the other runner takes: a day.
  const lockWaitMs = opts.lockWaitMs ?? 24 * 3600 * 1000;
  await ensureDatabase(databaseUrl);
  const migrations = await listMigrations();
  const client = new Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw new Error(describeConnectFailure(err, databaseUrl), { cause: err });
  }
  try {
    let applied = await readApplied(client);
    if (applied === undefined) {
      // Two runners' CREATE TABLE IF NOT EXISTS can still collide on the catalog: the lock orders them.
      await underMigrationLock(client, lockWaitMs, () => client.query(CREATE_MIGRATIONS_TABLE));
      applied = new Map();
    }
    const report: MigrationReport = { applied: [], alreadyApplied: 0 };
    for (const m of migrations) {
      const checksum = applied.get(m.name);
      if (checksum !== undefined) {
        if (checksum !== m.checksum) throw changed(m.name);
        report.alreadyApplied += 1;
        continue;
      }
      const appliedHere = await underMigrationLock(client, lockWaitMs, async () => {
        // The check that counts: under the lock, in the transaction that would apply it.
        const { rows } = await client.query<{ checksum: string }>(`${APPLIED} AND migration_name = $1`, [m.name]);
        if (rows[0] !== undefined) {
          if (rows[0].checksum !== m.checksum) throw changed(m.name);
          return false;
        }
        try {
          await client.query(m.sql);
        } catch (err) {
          throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
        }
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), now(), 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        return true;
      });
      if (appliedHere) report.applied.push(m.name);
      else report.alreadyApplied += 1;
    }
    return report;
  } catch (err) {
    if (codeOf(err) === '42501' || codeOf((err as Error).cause) === '42501') {
      const role = decodeURIComponent(new URL(databaseUrl).username) || '(the default role)';
      throw new Error(
        `role "${role}" may not change the schema (${(err as Error).message}): run \`npm run migrate\` as the role that owns the database, and start the service with MIGRATE_ON_START=false`,
        { cause: err },
      );
    }
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** What a starting process does about the schema (shared/platform/process.ts `prepare`). */
export const schemaSteps = { migrate, problem: schemaProblem };

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
