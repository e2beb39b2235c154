// Proves the hand-written migrations build the database schema.prisma describes (the migrate engine
// that would check this cannot be downloaded here). Models are read from schema.prisma itself, so a
// new model or field is covered without editing this file.
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import { migrate } from '../../prisma/migrate';
import { Prisma } from '../../shared/generated/prisma/client';
import type { Database } from '../../shared/platform/db';
import { openTestDb, testDatabaseUrl, uniqueSuffix } from '../helpers/context';
import { columnsOf, readPrismaSchema, type Model, type ScalarField } from './prisma-schema';

const schema = readPrismaSchema();
const modelNamed = (name: string) => schema.models.find((m) => m.name === name)!;
const suffix = uniqueSuffix();
let counter = 0;

/** A value for the field that is not its default, exercising its full range where that matters. */
function sampleValue(f: ScalarField): unknown {
  counter += 1;
  if (f.isEnum) {
    const values = schema.enums.get(f.type)!;
    return values.find((v) => v !== f.default) ?? values[0];
  }
  switch (f.type) {
    case 'String':
      return f.native?.name === 'Uuid' ? randomUUID() : `${f.name}-${suffix}-${counter} ünï "q" 'a'`;
    case 'Int':
      return 1000 + counter;
    case 'BigInt':
      return 9_007_199_254_740_993n + BigInt(counter); // past Number.MAX_SAFE_INTEGER
    case 'Float':
      return 0.1 + counter;
    case 'Boolean':
      return f.default !== 'true';
    case 'DateTime':
      return f.native?.name === 'Date'
        ? new Date(Date.UTC(2025, 0, counter))
        : new Date(Date.UTC(2026, 0, 1, 0, 0, counter, 123));
    case 'Decimal': {
      const [precision, scale] = (f.native?.args.length ? f.native.args : ['65', '30']).map(Number) as [number, number];
      const whole = '9876543210'.repeat(7).slice(0, precision - scale) || '0';
      return new Prisma.Decimal(`-${whole}.${'0123456789'.repeat(7).slice(0, scale)}`);
    }
    case 'Json':
      return { n: counter, text: 'ü "q"', list: [1.5, true, null], nested: { empty: [] } };
    default:
      throw new Error(`no sample for ${f.type}`);
  }
}

/** Comparable form: decimals and big integers as exact strings. */
function plain(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      Prisma.Decimal.isDecimal(v) ? v.toFixed() : typeof v === 'bigint' ? String(v) : v,
    ]),
  );
}

/**
 * Relations whose reference is checked once per statement by triggers instead of by a foreign key
 * (prisma/migrations/20261125190000_transactions_account_checked_per_statement): table → columns.
 */
const CHECKED_BY_TRIGGERS: Record<string, string[]> = { transactions: ['account_id'] };
const checkedByTriggers = (model: Model, columns: string[]) =>
  CHECKED_BY_TRIGGERS[model.table]?.join() === columns.join();

const ON_DELETE_CODE: Record<string, string> = {
  Cascade: 'c',
  Restrict: 'r',
  NoAction: 'a',
  SetNull: 'n',
  SetDefault: 'd',
};

function expectedColumnType(f: ScalarField): Record<string, unknown> {
  if (f.isEnum) return { data_type: 'USER-DEFINED', udt_name: f.type };
  switch (f.type) {
    case 'String':
      return {
        data_type: f.native?.name === 'Uuid' ? 'uuid' : f.native?.name === 'VarChar' ? 'character varying' : 'text',
      };
    case 'Int':
      return { data_type: 'integer' };
    case 'BigInt':
      return { data_type: 'bigint' };
    case 'Float':
      return { data_type: 'double precision' };
    case 'Boolean':
      return { data_type: 'boolean' };
    case 'Json':
      return { data_type: 'jsonb' };
    case 'Decimal': {
      const [precision = 65, scale = 30] = (f.native?.args ?? []).map(Number);
      return { data_type: 'numeric', numeric_precision: precision, numeric_scale: scale };
    }
    case 'DateTime':
      if (f.native?.name === 'Date') return { data_type: 'date' };
      if (f.native?.name === 'Timestamptz')
        return { data_type: 'timestamp with time zone', datetime_precision: Number(f.native.args[0] ?? 6) };
      return { data_type: 'timestamp without time zone', datetime_precision: 3 };
    default:
      throw new Error(`no column type for ${f.type}`);
  }
}

describe('the migrated database matches schema.prisma', () => {
  let t: { db: Database };

  beforeAll(async () => {
    t = await openTestDb();
  });
  afterAll(() => t.db.close());

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const delegate = (model: Model): any => (t.db.prisma as any)[model.name[0]!.toLowerCase() + model.name.slice(1)];
  const query = async <R>(sql: string, params: unknown[] = []) => (await t.db.pool.query(sql, params)).rows as R[];

  /** Creates a row of `model` (parents first, each row with fresh parents so unique keys never clash). */
  async function createRow(model: Model, variant: 'full' | 'minimal') {
    const data: Record<string, unknown> = {};
    for (const rel of model.relations) {
      const parent = await createRow(modelNamed(rel.model), 'minimal');
      rel.fields.forEach((field, i) => (data[field] = parent.row[rel.references[i]!]));
    }
    for (const f of model.scalars) {
      if (f.name in data || f.default === 'autoincrement()') continue;
      const required = !f.optional && f.default === undefined && !f.updatedAt;
      if (variant === 'full' || required) data[f.name] = sampleValue(f);
    }
    const row = (await delegate(model).create({ data })) as Record<string, unknown>;
    const key = Object.fromEntries(model.primaryKey.map((k) => [k, row[k]]));
    const readBack = (await delegate(model).findFirstOrThrow({ where: key })) as Record<string, unknown>;
    return { data, row, readBack };
  }

  it('has a generated client in step with schema.prisma, and a table for every model and nothing else', async () => {
    expect(schema.models.map((m) => m.name).sort()).toEqual(Object.values(Prisma.ModelName).sort());
    const tables = await query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    expect(tables.map((r) => r.table_name).sort()).toEqual(schema.models.map((m) => m.table).sort());
  });

  it("has every enum with the schema's labels in order", async () => {
    for (const [name, labels] of schema.enums) {
      const rows = await query<{ label: string }>(
        `SELECT e.enumlabel AS label FROM pg_enum e JOIN pg_type ty ON ty.oid = e.enumtypid WHERE ty.typname = $1 ORDER BY e.enumsortorder`,
        [name],
      );
      expect({ name, labels: rows.map((r) => r.label) }).toEqual({ name, labels });
    }
  });

  describe.each(schema.models.map((m) => [m.name, m] as const))('%s', (_name, model) => {
    it('round-trips a row with every field set through Prisma Client', async () => {
      const { data, row, readBack } = await createRow(model, 'full');
      const generated = Object.fromEntries(
        model.scalars.filter((f) => f.default === 'autoincrement()').map((f) => [f.name, row[f.name]]),
      );
      expect(plain(readBack)).toEqual(plain({ ...data, ...generated }));
    });

    it('fills the schema defaults and nulls when only required fields are given', async () => {
      const before = Date.now();
      const { data, readBack } = await createRow(model, 'minimal');
      for (const f of model.scalars) {
        const value = readBack[f.name];
        const d = f.default;
        const where = `${model.name}.${f.name}`;
        if (f.name in data)
          expect({ where, value: plain(readBack)[f.name] }).toEqual({ where, value: plain(data)[f.name] });
        else if (d === 'now()' || (d === undefined && f.updatedAt)) {
          expect({ where, recent: value instanceof Date && Math.abs(value.getTime() - before) < 60_000 }).toEqual({
            where,
            recent: true,
          });
        } else if (d === 'autoincrement()')
          expect({ where, type: typeof value }).toEqual({ where, type: f.type === 'BigInt' ? 'bigint' : 'number' });
        else if (d === undefined) expect({ where, value }).toEqual({ where, value: null });
        else {
          const literal = d.startsWith('"') ? (JSON.parse(d) as string) : d;
          const expected =
            f.type === 'Json'
              ? JSON.parse(literal)
              : f.type === 'Boolean'
                ? literal === 'true'
                : f.type === 'Int'
                  ? Number(literal)
                  : literal;
          expect({ where, value }).toEqual({ where, value: expected });
        }
      }
    });

    it('has the columns, types, nullability and defaults of its fields', async () => {
      const columns = await query<Record<string, unknown> & { column_name: string }>(
        `SELECT column_name, is_nullable, column_default, data_type, udt_name, datetime_precision, numeric_precision, numeric_scale
           FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
        [model.table],
      );
      expect(columns.map((c) => c.column_name).sort()).toEqual(model.scalars.map((f) => f.column).sort());
      for (const f of model.scalars) {
        const c = columns.find((col) => col.column_name === f.column)!;
        const expected = {
          column: f.column,
          nullable: f.optional,
          hasDefault: f.default !== undefined,
          ...expectedColumnType(f),
        };
        const actual = {
          column: f.column,
          nullable: c.is_nullable === 'YES',
          hasDefault: c.column_default !== null,
          ...Object.fromEntries(Object.keys(expectedColumnType(f)).map((k) => [k, c[k]])),
        };
        expect(actual).toEqual(expected);
      }
    });

    it('has its primary key, unique indexes, indexes and foreign keys', async () => {
      const indexes = await query<{ primary: boolean; unique: boolean; special: boolean; columns: string[] }>(
        `SELECT i.indisprimary AS primary, i.indisunique AS unique, (i.indpred IS NOT NULL OR i.indexprs IS NOT NULL) AS special,
                array(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
                        JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns
           FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
          WHERE c.relname = $1 AND c.relnamespace = 'public'::regnamespace`,
        [model.table],
      );
      // Partial and expression indexes are what schema.prisma cannot express; the rest must match it.
      const plainIndexes = indexes.filter((i) => !i.special);
      const describeIndex = (i: { primary: boolean; unique: boolean; columns: string[] }) =>
        `${i.primary ? 'primary' : i.unique ? 'unique' : 'index'}(${i.columns.join(',')})`;
      const expected = [
        { primary: true, unique: true, columns: columnsOf(model, model.primaryKey) },
        ...model.uniques.map((u) => ({ primary: false, unique: true, columns: columnsOf(model, u) })),
        ...model.indexes.map((u) => ({ primary: false, unique: false, columns: columnsOf(model, u) })),
      ];
      expect(plainIndexes.map(describeIndex).sort()).toEqual(expected.map(describeIndex).sort());

      const foreignKeys = await query<{
        ref_table: string;
        columns: string[];
        ref_columns: string[];
        on_delete: string;
        on_update: string;
      }>(
        `SELECT rt.relname::text AS ref_table, c.confdeltype AS on_delete, c.confupdtype AS on_update,
                array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, o)
                        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o) AS columns,
                array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, o)
                        JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o) AS ref_columns
           FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class rt ON rt.oid = c.confrelid
          WHERE c.contype = 'f' AND t.relname = $1 AND t.relnamespace = 'public'::regnamespace`,
        [model.table],
      );
      const expectedKeys = model.relations
        .filter((rel) => !checkedByTriggers(model, columnsOf(model, rel.fields)))
        .map((rel) => {
          const target = modelNamed(rel.model);
          const optional = rel.fields.some((f) => model.scalars.find((s) => s.name === f)!.optional);
          // Prisma's defaults: Restrict for a required relation, SetNull for an optional one; updates cascade.
          const onDelete = rel.onDelete ?? (optional ? 'SetNull' : 'Restrict');
          return {
            ref_table: target.table,
            columns: columnsOf(model, rel.fields),
            ref_columns: columnsOf(target, rel.references),
            on_delete: ON_DELETE_CODE[onDelete],
            on_update: 'c',
          };
        });
      const byColumns = (a: { columns: string[] }, b: { columns: string[] }) =>
        a.columns.join().localeCompare(b.columns.join());
      expect([...foreignKeys].sort(byColumns)).toEqual(expectedKeys.sort(byColumns));
    });
  });

  describe("transactions' accounts, checked per statement as their foreign key checked each row", () => {
    const insert = (accountIds: number[], tag: string) =>
      t.db.pool.query(
        `INSERT INTO transactions (account_id, transaction_id, transaction_date, amount, type, submitted, request_id)
         SELECT a, $2 || '-' || o, DATE '2024-01-01', 1, 'CREDIT', '{}', $2
           FROM unnest($1::int[]) WITH ORDINALITY AS u(a, o)`,
        [accountIds, tag],
      );
    const rowsTagged = async (tag: string) =>
      (await query<{ account_id: number }>('SELECT account_id FROM transactions WHERE request_id = $1', [tag])).map(
        (r) => r.account_id,
      );
    const newAccount = async () => (await createRow(modelNamed('Account'), 'minimal')).row.id as number;
    // Below zero, where the id sequence never goes: an id taken here is never one a later insert is given.
    const missingAccount = async () =>
      (await query<{ id: number }>('SELECT least(coalesce(min(id), 0), 0) - 1000 AS id FROM accounts'))[0]!.id;

    it('refuses a statement naming an account that does not exist, under the old constraint, writing nothing', async () => {
      const [a, gone] = [await newAccount(), await missingAccount()];
      const tag = `fk-insert-${suffix}`;
      await expect(insert([a, gone, a], tag)).rejects.toMatchObject({
        code: '23503',
        constraint: 'transactions_account_id_fkey',
      });
      expect(await rowsTagged(tag)).toEqual([]);
      await insert([a, a], tag);
      expect(await rowsTagged(tag)).toEqual([a, a]);
      await expect(
        t.db.pool.query('UPDATE transactions SET account_id = $1 WHERE request_id = $2', [gone, tag]),
      ).rejects.toMatchObject({ code: '23503' });
      await expect(
        t.db.prisma.transaction.create({
          data: {
            accountId: gone,
            transactionId: 'x',
            transactionDate: new Date('2024-01-01'),
            amount: 1,
            type: 'CREDIT',
            submitted: {},
            requestId: tag,
          },
        }),
      ).rejects.toMatchObject({ code: 'P2003' });
      expect(await rowsTagged(tag)).toEqual([a, a]);
    });

    it("cascades an account's deletion and a change of its id to its transactions", async () => {
      const [kept, moved, deleted] = [await newAccount(), await newAccount(), await newAccount()];
      const tag = `fk-cascade-${suffix}`;
      await insert([kept, moved, deleted, deleted], tag);
      const newId = await missingAccount();
      await t.db.pool.query('UPDATE accounts SET id = $1 WHERE id = $2', [newId, moved]);
      await t.db.pool.query('DELETE FROM accounts WHERE id = $1', [deleted]);
      expect((await rowsTagged(tag)).sort()).toEqual([kept, newId].sort());
    });

    it('keeps the accounts an uncommitted insert names from being deleted until it commits', async () => {
      const a = await newAccount();
      const tag = `fk-lock-${suffix}`;
      const writer = new Client({ connectionString: testDatabaseUrl });
      const deleter = new Client({ connectionString: testDatabaseUrl });
      await Promise.all([writer.connect(), deleter.connect()]);
      try {
        await writer.query('BEGIN');
        await writer.query(
          `INSERT INTO transactions (account_id, transaction_id, transaction_date, amount, type, submitted, request_id)
           VALUES ($1, 't', DATE '2024-01-01', 1, 'CREDIT', '{}', $2)`,
          [a, tag],
        );
        await deleter.query("SET lock_timeout = '300ms'");
        await expect(deleter.query('DELETE FROM accounts WHERE id = $1', [a])).rejects.toMatchObject({
          code: '55P03',
        });
        await writer.query('COMMIT');
        await deleter.query('DELETE FROM accounts WHERE id = $1', [a]);
        expect(await rowsTagged(tag)).toEqual([]);
      } finally {
        await Promise.all([writer.end(), deleter.end()]);
      }
    });
  });

  it('enforces the rules schema.prisma cannot express: one open statement period and one active payment instruction per account', async () => {
    const p = t.db.prisma;
    const code = `SCHEMA_${suffix}`;
    await p.importSupplier.create({ data: { code, documentRoot: `schema/${code}` } });
    const process_ = await p.accountImportProcess.create({
      data: { supplierCode: code, externalAccountNumber: 'EXT-U' },
    });
    const account = await p.account.create({ data: { processId: process_.id, platformAccountNumber: `A-U${suffix}` } });
    const day = (iso: string) => new Date(`${iso}T00:00:00Z`);

    await p.statementPeriod.create({ data: { accountId: account.id, startsOn: day('2026-01-01') } });
    await expect(
      p.statementPeriod.create({ data: { accountId: account.id, startsOn: day('2026-02-01') } }),
    ).rejects.toMatchObject({
      code: 'P2002',
    });
    await p.statementPeriod.create({
      data: { accountId: account.id, startsOn: day('2025-01-01'), endsOn: day('2025-12-31'), isOpen: false },
    });

    await p.paymentInstruction.create({ data: { accountId: account.id, vendor: 'V', reference: 'r1', type: 'CARD' } });
    await expect(
      p.paymentInstruction.create({ data: { accountId: account.id, vendor: 'V', reference: 'r2', type: 'CARD' } }),
    ).rejects.toMatchObject({
      code: 'P2002',
    });
    await p.paymentInstruction.create({
      data: { accountId: account.id, vendor: 'V', reference: 'r3', type: 'CARD', isActive: false },
    });
    expect(await p.paymentInstruction.count({ where: { accountId: account.id } })).toBe(2);
  });
});

describe('migrate()', () => {
  const MIGRATIONS_DIR = path.join(__dirname, '../../prisma/migrations');
  const name = `data_import_test_migrate_${uniqueSuffix().toLowerCase()}`;
  const urlOf = (database: string) => {
    const u = new URL(testDatabaseUrl);
    u.pathname = `/${database}`;
    return u.toString();
  };
  const url = urlOf(name);

  async function onDatabase<T>(databaseUrl: string, fn: (c: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  afterAll(() => onDatabase(urlOf('postgres'), (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)));

  async function migrationFiles(): Promise<{ name: string; checksum: string }[]> {
    const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true });
    const dirs = entries
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    return Promise.all(
      dirs.map(async (dir) => ({
        name: dir,
        checksum: createHash('sha256')
          .update(await readFile(path.join(MIGRATIONS_DIR, dir, 'migration.sql')))
          .digest('hex'),
      })),
    );
  }

  it('creates a missing database, applies every migration once with its sha256 recorded, then applies nothing', async () => {
    const files = await migrationFiles();

    const first = await migrate(url);
    const second = await migrate(url);

    expect(first).toEqual({ applied: files.map((f) => f.name), alreadyApplied: 0 });
    expect(second).toEqual({ applied: [], alreadyApplied: files.length });
    const rows = await onDatabase(url, (c) =>
      c.query<{
        migration_name: string;
        checksum: string;
        finished_at: Date | null;
        rolled_back_at: Date | null;
        applied_steps_count: number;
      }>(
        'SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
      ),
    );
    expect(rows.rows.map((r) => ({ name: r.migration_name, checksum: r.checksum }))).toEqual(files);
    expect(
      rows.rows.every((r) => r.finished_at !== null && r.rolled_back_at === null && r.applied_steps_count === 1),
    ).toBe(true);
  });

  it('lets two runners start together on a migrated database without either applying anything twice', async () => {
    const files = await migrationFiles();
    const reports = await Promise.all([migrate(url), migrate(url)]);
    expect(reports).toEqual([
      { applied: [], alreadyApplied: files.length },
      { applied: [], alreadyApplied: files.length },
    ]);
  });

  // API and worker starting together on a fresh database both try to create it; the loser's CREATE
  // DATABASE fails with 42P04 or, when both race on the catalog, 23505.
  it('lets two runners start together on a database that does not exist yet', async () => {
    const fresh = `${name}_race`;
    try {
      const outcomes = await Promise.allSettled([migrate(urlOf(fresh)), migrate(urlOf(fresh))]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
    } finally {
      await onDatabase(urlOf('postgres'), (c) => c.query(`DROP DATABASE IF EXISTS "${fresh}" WITH (FORCE)`));
    }
  });

  it('refuses to run when an applied migration file was changed afterwards', async () => {
    const [first] = await migrationFiles();
    await onDatabase(url, (c) =>
      c.query('UPDATE _prisma_migrations SET checksum = $1 WHERE migration_name = $2', ['0'.repeat(64), first!.name]),
    );
    await expect(migrate(url)).rejects.toThrow(/changed after it was applied/);
  });
});
