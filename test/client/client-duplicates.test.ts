// An item repeated in one run is caught before anything is sent: `validate`, a dry run and `send`
// fail the repeat with its own code (duplicate_in_run), naming both lines, and send the item once.
// A transaction's key is its transaction_id on one account (the same id on another account is
// another transaction); an account's is its external_account_number.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KeySet } from '../../client/key-set';
import { account, applyCatalogue, type Json } from '../account-import/account.fixture';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { readResults, runClient, summaryOf, transaction, writeLines } from './client.fixture';

let app: TestApp;
let tenant: Tenant;
let dir: string;

beforeAll(async () => {
  app = await startTestApp({}, { workers: true });
  await applyCatalogue(app);
  tenant = await createTenant(app, {
    accounts: ['DUP-A', 'DUP-B'].map((external_account_number) => ({
      external_account_number,
      state: 'imported' as const,
      open_statement_from: '2019-10-01',
    })),
  });
  dir = mkdtempSync(path.join(tmpdir(), 'data-import-duplicates-'));
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const count = async (sql: string) => (await app.db.pool.query<{ n: number }>(sql, [tenant.supplier])).rows[0]!.n;
const storedTransactions = () =>
  count(`SELECT count(*)::int AS n FROM transactions t JOIN accounts a ON a.id = t.account_id
           JOIN account_import_processes p ON p.id = a.process_id WHERE p.supplier_code = $1`);

const client = (...args: string[]) => runClient(app.baseUrl, tenant.apiKey, [...args, '--json']);

it('fails a transaction_id repeated on one account in validate, a dry run and send, and stores it once', async () => {
  const file = writeLines(dir, 'transactions.ndjson', [
    JSON.stringify(transaction(tenant.supplier, 'DUP-A', 'T-1', '10.00')),
    JSON.stringify(transaction(tenant.supplier, 'DUP-B', 'T-1', '20.00')),
    JSON.stringify(transaction(tenant.supplier, 'DUP-A', 'T-2', '30.00')),
    JSON.stringify(transaction(tenant.supplier, 'DUP-A', 'T-1', '10.00')),
  ]);
  const expectRepeat = (journal: string) => {
    const failed = readResults(journal, 'failed');
    expect(failed).toEqual([
      expect.objectContaining({
        line: 4,
        external_account_number: 'DUP-A',
        code: 'duplicate_in_run',
        attr: 'transaction_id',
        detail: 'Line 4 repeats transaction_id T-1 on account DUP-A of line 1: only line 1 is sent.',
      }),
    ]);
  };

  const validated = await client('validate', 'transactions', file, '--journal', path.join(dir, 'validate'));
  expect(summaryOf(validated)).toMatchObject({ items: 4, failed: 1 });
  expect(validated.code).toBe(1);
  expectRepeat(path.join(dir, 'validate'));

  const dry = await client('send', 'transactions', file, '--dry-run', '--journal', path.join(dir, 'dry'));
  expect(summaryOf(dry)).toMatchObject({ succeeded: 3, failed: 1 });
  expectRepeat(path.join(dir, 'dry'));
  expect(await storedTransactions()).toBe(0);

  const sent = await client('send', 'transactions', file, '--journal', path.join(dir, 'send'));
  expect(summaryOf(sent)).toMatchObject({ succeeded: 3, skipped: 0, failed: 1, exit_code: 1 });
  expectRepeat(path.join(dir, 'send'));
  expect(await storedTransactions()).toBe(3);
});

it('fails an account repeated in one file, naming both lines, and creates it once', async () => {
  const plain = (external: string): Json => {
    const a = account(tenant.supplier, external);
    delete a.supply_addresses;
    return a;
  };
  const file = writeLines(dir, 'accounts.ndjson', [
    JSON.stringify(plain('NEW-1')),
    JSON.stringify(plain('NEW-2')),
    JSON.stringify({ ...plain('NEW-1'), billing_name: 'Someone Else' }),
  ]);
  const repeat = {
    line: 3,
    code: 'duplicate_in_run',
    attr: 'external_account_number',
    detail: 'Line 3 repeats external_account_number NEW-1 of line 1: only line 1 is sent.',
  };

  const validated = await client('validate', 'accounts', file, '--journal', path.join(dir, 'validate-accounts'));
  expect(validated.code).toBe(1);
  expect(readResults(path.join(dir, 'validate-accounts'), 'failed')).toEqual([expect.objectContaining(repeat)]);

  const sent = await client('send', 'accounts', file, '--journal', path.join(dir, 'send-accounts'));
  expect(summaryOf(sent)).toMatchObject({ succeeded: 2, failed: 1, exit_code: 1 });
  expect(readResults(path.join(dir, 'send-accounts'), 'failed')).toEqual([expect.objectContaining(repeat)]);
  const created = await count(
    `SELECT count(*)::int AS n FROM account_import_processes WHERE supplier_code = $1 AND external_account_number = 'NEW-1'`,
  );
  expect(created).toBe(1);
});

it('keeps item keys in a table that grows and answers the first line of each', () => {
  const keys = new KeySet();
  const digest = (i: number) => createHash('sha256').update(`key-${i}`).digest();
  for (let i = 0; i < 20_000; i++) expect(keys.firstLine(digest(i), i + 1)).toBeUndefined();
  expect(keys.size).toBe(20_000);
  for (let i = 0; i < 20_000; i += 997) expect(keys.firstLine(digest(i), 50_000)).toBe(i + 1);
  expect(keys.size).toBe(20_000);
});
