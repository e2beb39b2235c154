// The bench's own data, seeded with set-based SQL and kept between runs: one organisation that may use
// a write supplier (imported accounts, each with an open statement period) and a list supplier (half
// imported, half staged). Each run empties the write tables, so every run starts from the same state.
import { migrate } from '../prisma/migrate';
import { applyFile } from '../shared/admin/apply.use-case';
import { createDatabase, type Database } from '../shared/platform/db';
import { ACCOUNT_ELEC_TARIFF, ACCOUNT_GAS_TARIFF, ACCOUNT_TEAM } from './account-payloads';

export const OPEN_FROM = '2020-01-01';
const API_KEY = `bench-api-key-${'k'.repeat(32)}`;

export interface Fixtures {
  apiKey: string;
  writeSupplier: string;
  /** External numbers are `${writePrefix}${index padded to 7}` for index 1..accounts. */
  writePrefix: string;
  writeAccountIds: number[];
  listSupplier: string;
  /** External numbers are `EXT-${index padded to 8}` for index 1..listAccounts. */
  listAccounts: number;
  /** The `accounts` phase's supplier: emptied at the start of the phase (clearAccountSupplier). */
  accountSupplier: string;
}

export const ACCOUNT_SUPPLIER = 'BENCH_ACCOUNTS';

export const writeExternal = (f: Fixtures, index: number) => `${f.writePrefix}${String(index).padStart(7, '0')}`;
export const listExternal = (index: number) => `EXT-${String(index).padStart(8, '0')}`;

export async function prepareFixtures(databaseUrl: string, accounts: number, listAccounts: number): Promise<Fixtures> {
  await migrate(databaseUrl);
  const db = createDatabase({ DATABASE_URL: databaseUrl, DB_POOL_SIZE: 2 });
  try {
    const writeSupplier = `BENCH_WRITE_${accounts}`;
    const listSupplier = `BENCH_LIST_${listAccounts}`;
    await applyFile(db, {
      suppliers: [
        { code: writeSupplier, document_root: `bench/${writeSupplier}` },
        { code: listSupplier, document_root: `bench/${listSupplier}` },
        { code: ACCOUNT_SUPPLIER, document_root: `bench/${ACCOUNT_SUPPLIER}` },
      ],
      organisations: [{ name: 'bench', api_key: API_KEY, suppliers: [writeSupplier, listSupplier, ACCOUNT_SUPPLIER] }],
      products: [
        { code: ACCOUNT_ELEC_TARIFF, rates: [] },
        { code: ACCOUNT_GAS_TARIFF, rates: [] },
      ],
      operations_teams: [{ name: ACCOUNT_TEAM }],
    });
    await db.pool.query('TRUNCATE transactions, notes, request_results');
    await seedWriteAccounts(db, writeSupplier, accounts);
    await seedListAccounts(db, listSupplier, listAccounts);
    const ids = await db.pool.query<{ id: number }>(
      `SELECT a.id FROM accounts a JOIN account_import_processes p ON p.id = a.process_id
        WHERE p.supplier_code = $1 ORDER BY p.external_account_number`,
      [writeSupplier],
    );
    return {
      apiKey: API_KEY,
      writeSupplier,
      writePrefix: 'W-',
      writeAccountIds: ids.rows.map((r) => r.id),
      listSupplier,
      listAccounts,
      accountSupplier: ACCOUNT_SUPPLIER,
    };
  } finally {
    await db.close();
  }
}

async function count(db: Database, sql: string, params: unknown[]): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>(sql, params);
  return Number(rows[0]!.n);
}

async function seedWriteAccounts(db: Database, supplier: string, accounts: number): Promise<void> {
  const ready = await count(
    db,
    `SELECT count(*) AS n FROM account_import_processes p JOIN accounts a ON a.process_id = p.id
       JOIN statement_periods s ON s.account_id = a.id AND s.is_open AND s.starts_on = $2
      WHERE p.supplier_code = $1`,
    [supplier, OPEN_FROM],
  );
  if (ready === accounts) return;
  await deleteSupplierAccounts(db.pool, supplier);
  await db.pool.query(
    `INSERT INTO account_import_processes (supplier_code, external_account_number, state)
     SELECT $1, 'W-' || lpad(g::text, 7, '0'), 'IMPORTED' FROM generate_series(1, $2::int) g`,
    [supplier, accounts],
  );
  await db.pool.query(
    `INSERT INTO accounts (process_id, platform_account_number)
     SELECT id, 'A-' || $1 || '-' || id FROM account_import_processes WHERE supplier_code = $1`,
    [supplier],
  );
  await db.pool.query(
    `INSERT INTO statement_periods (account_id, starts_on, is_open)
     SELECT a.id, $2::date, true FROM accounts a JOIN account_import_processes p ON p.id = a.process_id
      WHERE p.supplier_code = $1`,
    [supplier, OPEN_FROM],
  );
}

async function seedListAccounts(db: Database, supplier: string, accounts: number): Promise<void> {
  const have = await count(db, 'SELECT count(*) AS n FROM account_import_processes WHERE supplier_code = $1', [
    supplier,
  ]);
  if (have === accounts) return;
  await deleteSupplierAccounts(db.pool, supplier);
  await db.pool.query(
    `INSERT INTO account_import_processes (supplier_code, external_account_number, state)
     SELECT $1, 'EXT-' || lpad(g::text, 8, '0'), (CASE WHEN g % 2 = 0 THEN 'IMPORTED' ELSE 'STAGED' END)::"ImportState"
       FROM generate_series(1, $2::int) g`,
    [supplier, accounts],
  );
  await db.pool.query(
    `INSERT INTO accounts (process_id, platform_account_number, created_at)
     SELECT id, 'A-' || $1 || '-' || id, now() FROM account_import_processes WHERE supplier_code = $1 AND state = 'IMPORTED'`,
    [supplier],
  );
  await db.pool.query('ANALYZE account_import_processes');
  await db.pool.query('ANALYZE accounts');
}

/** Empties the `accounts` phase's supplier: its accounts (with all they hold) and processes go. */
export async function clearAccountSupplier(pg: Queryable): Promise<void> {
  await deleteSupplierAccounts(pg, ACCOUNT_SUPPLIER);
}

interface Queryable {
  query(sql: string, params: unknown[]): Promise<unknown>;
}

async function deleteSupplierAccounts(pg: Queryable, supplier: string): Promise<void> {
  // Everything hanging off an account (periods, notes, transactions…) goes with it: ON DELETE CASCADE.
  await pg.query(
    'DELETE FROM accounts WHERE process_id IN (SELECT id FROM account_import_processes WHERE supplier_code = $1)',
    [supplier],
  );
  await pg.query('DELETE FROM account_import_processes WHERE supplier_code = $1', [supplier]);
}
