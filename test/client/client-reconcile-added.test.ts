// Following the service's own advice leaves no difference: a transaction outside the open statement
// period, sent with force_add_to_current_statement, is moved and the service pins a note saying so.
// That note is the service's, not the migration's: reconcile reports it apart and compares only what
// the files sent, so the run reconciles to zero (exit 0).
import { rmSync } from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app';
import { clientWorld, runClient, summaryOf, transaction, writeLines, type ClientWorld } from './client.fixture';

let app: TestApp;
let world: ClientWorld;

beforeAll(async () => {
  app = await startTestApp({}, { workers: true });
  world = await clientWorld(app, 1);
});
afterAll(async () => {
  await app.close();
  rmSync(world.dir, { recursive: true, force: true });
});

it('reports the moved-transactions note apart and reconciles what was sent to zero', async () => {
  const { tenant, accounts, dir } = world;
  const account = accounts[0]!;
  const runsDir = path.join(dir, 'runs');
  const send = (kind: string, file: string, ...more: string[]) =>
    runClient(app.baseUrl, tenant.apiKey, ['send', kind, file, '--runs-dir', runsDir, '--json', ...more]);
  const notes = writeLines(dir, 'notes.ndjson', [
    JSON.stringify({ import_supplier: tenant.supplier, external_account_number: account, body: 'Sent by us' }),
  ]);
  expect((await send('notes', notes)).code).toBe(0);
  // The account's open statement period starts 2019-10-01: this date is before it.
  const old = { ...transaction(tenant.supplier, account, 'OLD-1', '7.25'), transaction_date: '2019-01-15' };
  const transactions = writeLines(dir, 'transactions.ndjson', [JSON.stringify(old)]);
  const sent = await send('transactions', transactions, '--force-add-to-current-statement', 'true');
  expect(summaryOf(sent)).toMatchObject({ succeeded: 1, failed: 0 });
  const pinned = await app.db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM notes n JOIN accounts a ON a.id = n.account_id
       JOIN account_import_processes p ON p.id = a.process_id
      WHERE p.supplier_code = $1 AND n.is_pinned AND n.service_origin = 'moved_transactions'`,
    [tenant.supplier],
  );
  expect(pinned.rows[0]!.n).toBe(1);

  const out = path.join(dir, 'report.csv');
  const reconciled = await runClient(app.baseUrl, tenant.apiKey, [
    'reconcile',
    '--supplier',
    tenant.supplier,
    '--runs-dir',
    runsDir,
    notes,
    transactions,
    '--out',
    out,
    '--json',
  ]);
  expect(reconciled.stderr).toBe('');
  const summary = summaryOf(reconciled);
  expect(summary.totals.notes_count).toEqual({ expected: '1', found: '1', difference: '0' });
  expect(summary.added_by_service).toEqual({ service_notes_count: '1' });
  expect(summary.accounts_differing).toBe(0);
  expect(reconciled.code).toBe(0);

  const human = await runClient(app.baseUrl, tenant.apiKey, [
    'reconcile',
    '--supplier',
    tenant.supplier,
    '--runs-dir',
    runsDir,
    notes,
    transactions,
    '--out',
    out,
  ]);
  expect(human.stdout).toContain('the service added 1 note itself (the pinned note on moved transactions)');
  expect(human.code).toBe(0);
});
