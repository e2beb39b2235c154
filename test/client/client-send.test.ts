// The migration client sending whole files to the real service: NDJSON and CSV, bad lines, batching,
// result files joined to the source, exit codes, validation offline, and a reconciliation.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createTenant, startTestApp, type TestApp } from '../helpers/app';
import {
  clientWorld,
  readResults,
  runClient,
  summaryOf,
  transaction,
  writeLines,
  type ClientWorld,
} from './client.fixture';
import { startFaultProxy, type FaultProxy } from './fault-proxy';

let app: TestApp;
let world: ClientWorld;
const proxies: FaultProxy[] = [];

beforeAll(async () => {
  app = await startTestApp({}, { workers: true });
  world = await clientWorld(app, 6);
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await app.close();
  rmSync(world.dir, { recursive: true, force: true });
});

const storedTransactions = async (supplier: string) =>
  (
    await app.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM transactions t JOIN accounts a ON a.id = t.account_id
         JOIN account_import_processes p ON p.id = a.process_id WHERE p.supplier_code = $1`,
      [supplier],
    )
  ).rows[0]!.n;

describe('send', () => {
  it('stores every good line of an NDJSON file once, fails exactly the bad lines, and a second run adds nothing', async () => {
    const { supplier } = world.tenant;
    const lines: string[] = [];
    const bad = new Map<number, string>([
      [5, 'parse_error'],
      [12, 'invalid'],
      [20, 'amount_must_be_positive'],
      [30, 'account_not_found'],
    ]);
    for (let line = 1; line <= 40; line++) {
      const account = world.accounts[line % world.accounts.length]!;
      const t = transaction(supplier, account, `T-${line}`, `${line}.0${line % 10}`);
      if (line === 5) lines.push('{"import_supplier": "' + supplier + '", broken');
      else if (line === 12) lines.push(JSON.stringify({ ...t, amount: 'abc' }));
      else if (line === 20) lines.push(JSON.stringify({ ...t, type: 'PAYMENT', amount: '-3.00' }));
      else if (line === 30) lines.push(JSON.stringify({ ...t, external_account_number: 'EXT-NOT-THERE' }));
      else lines.push(JSON.stringify(t));
    }
    const file = writeLines(world.dir, 'transactions.ndjson', lines);
    const journal = path.join(world.dir, 'run-1');

    const first = await runClient(app.baseUrl, world.tenant.apiKey, [
      'send',
      'transactions',
      file,
      '--journal',
      journal,
      '--batch',
      '7',
      '--concurrency',
      '3',
      '--json',
    ]);

    expect(first.code).toBe(1);
    const failed = readResults(journal, 'failed');
    expect(failed.map((f) => [f.line, f.code]).sort((a, b) => a[0] - b[0])).toEqual([...bad.entries()]);
    expect(failed.find((f) => f.line === 20)).toMatchObject({
      external_account_number: world.accounts[20 % 6],
      attr: 'amount',
    });
    const succeeded = readResults(journal, 'succeeded');
    expect(succeeded.map((s) => s.line).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1).filter((l) => !bad.has(l)),
    );
    expect(succeeded.every((s) => s.status === 'TRANSACTION_ADDED_TO_ACCOUNT' && typeof s.id === 'string')).toBe(true);
    expect(succeeded.find((s) => s.line === 7)).toMatchObject({
      import_supplier: supplier,
      external_account_number: world.accounts[1],
    });
    expect(readResults(journal, 'unprocessed')).toEqual([]);
    expect(summaryOf(first)).toMatchObject({ succeeded: 36, skipped: 0, failed: 4, unprocessed: 0, exit_code: 1 });
    expect(await storedTransactions(supplier)).toBe(36);

    const second = await runClient(app.baseUrl, world.tenant.apiKey, [
      'send',
      'transactions',
      file,
      '--journal',
      path.join(world.dir, 'run-2'),
      '--json',
    ]);
    expect(summaryOf(second)).toMatchObject({ succeeded: 0, skipped: 36, failed: 4 });
    expect(await storedTransactions(supplier)).toBe(36);

    const report = path.join(world.dir, 'report.csv');
    const reconciled = await runClient(app.baseUrl, world.tenant.apiKey, [
      'reconcile',
      '--supplier',
      supplier,
      journal,
      path.join(world.dir, 'run-2'),
      '--out',
      report,
      '--json',
    ]);
    expect(reconciled.stderr).toBe('');
    expect(summaryOf(reconciled)).toMatchObject({ accounts: 6, accounts_differing: 0 });
    expect(summaryOf(reconciled).totals.transactions_count).toEqual({ expected: '36', found: '36', difference: '0' });
    expect(reconciled.code).toBe(0);
  });

  it('puts lines the service already holds with other values (matches_stored: false) in differs.ndjson, counted apart, exit 1', async () => {
    const { supplier } = world.tenant;
    const sent = [1, 2, 3, 4, 5, 6].map((i) => transaction(supplier, world.accounts[0]!, `D-${i}`, `${i}.00`));
    const first = writeLines(
      world.dir,
      'differs-first.ndjson',
      sent.map((t) => JSON.stringify(t)),
    );
    expect((await runClient(app.baseUrl, world.tenant.apiKey, ['send', 'transactions', first])).code).toBe(0);
    const changed = new Set(['D-2', 'D-5']);
    const again = writeLines(
      world.dir,
      'differs-again.ndjson',
      sent.map((t) => JSON.stringify(changed.has(t.transaction_id) ? { ...t, amount: '99.00' } : t)),
    );
    // The service's additive field on the results it already had with other values, put where it goes
    // (on the result), so this holds whichever service version answers.
    type Results = { results: { transaction_data: { transaction_id: string } }[] };
    const p = await startFaultProxy(app.baseUrl, (req) =>
      req.url!.startsWith('/v1/data-import/')
        ? {
            rewrite: (body) => ({
              results: (body as Results).results.map((r) =>
                changed.has(r.transaction_data.transaction_id) ? { ...r, matches_stored: false } : r,
              ),
            }),
          }
        : 'pass',
    );
    proxies.push(p);
    const journal = path.join(world.dir, 'differs-run');

    const run = await runClient(p.baseUrl, world.tenant.apiKey, ['send', 'transactions', again, '--journal', journal]);

    expect(run.code).toBe(1);
    expect(run.stdout).toContain('succeeded 0, already there 4, already there but different 2, failed 0');
    expect(readResults(journal, 'differs')).toEqual([
      expect.objectContaining({ line: 2, status: 'TRANSACTION_ALREADY_EXISTS', id: 'D-2' }),
      expect.objectContaining({ line: 5, status: 'TRANSACTION_ALREADY_EXISTS', id: 'D-5' }),
    ]);
    expect(readResults(journal, 'succeeded').map((s) => s.line)).toEqual([1, 3, 4, 6]);
    const resumed = await runClient(app.baseUrl, world.tenant.apiKey, ['resume', journal, '--json']);
    expect(summaryOf(resumed)).toMatchObject({ succeeded: 0, skipped: 4, differs: 2, failed: 0, exit_code: 1 });
  });

  it('reads CSV with JSON cells: notes and statements arrive, and the reconciliation sees them', async () => {
    const { supplier } = world.tenant;
    const [a, b] = world.accounts;
    const notes = writeLines(world.dir, 'notes.csv', [
      'import_supplier,external_account_number,body,is_pinned,document_paths',
      `${supplier},${a},"First, with a comma",true,`,
      `${supplier},${a},Second,,"[{""document_path"": ""notes/2.pdf""}]"`,
      `${supplier},${b},,false,`,
      `${supplier},${b},"Third ""quoted""",false,`,
    ]);
    const notesRun = await runClient(app.baseUrl, world.tenant.apiKey, [
      'send',
      'notes',
      notes,
      '--runs-dir',
      world.dir,
      '--json',
    ]);
    expect(summaryOf(notesRun)).toMatchObject({ succeeded: 3, failed: 1, exit_code: 1 });
    const notesFailed = readResults(summaryOf(notesRun).journal, 'failed');
    expect(notesFailed).toEqual([
      expect.objectContaining({ line: 4, external_account_number: b, code: 'note_body_or_document_path_not_found' }),
    ]);

    const statements = writeLines(world.dir, 'statements.csv', [
      'import_supplier,external_account_number,statement_id,bill_period_from_date,bill_period_to_date,gross_amount',
      `${supplier},${a},S-1,2024-01-01,2024-01-31,12050`,
      `${supplier},${a},S-2,2024-02-01,2024-02-29,99`,
      `${supplier},${b},S-1,2024-01-01,2024-01-31,`,
    ]);
    const first = await runClient(app.baseUrl, world.tenant.apiKey, [
      'send',
      'statements',
      statements,
      '--runs-dir',
      world.dir,
      '--json',
    ]);
    expect(summaryOf(first)).toMatchObject({ succeeded: 3, failed: 0, exit_code: 0 });
    expect(first.code).toBe(0);
    // Statements that exist answer 400 historical_statement_already_exists: the client counts them as there.
    const again = await runClient(app.baseUrl, world.tenant.apiKey, [
      'send',
      'statements',
      statements,
      '--runs-dir',
      world.dir,
      '--json',
    ]);
    expect(summaryOf(again)).toMatchObject({ succeeded: 0, skipped: 3, failed: 0, exit_code: 0 });

    const report = path.join(world.dir, 'report-csv.csv');
    const reconciled = await runClient(app.baseUrl, world.tenant.apiKey, [
      'reconcile',
      '--supplier',
      supplier,
      notes,
      statements,
      '--runs-dir',
      world.dir,
      '--out',
      report,
      '--json',
    ]);
    const totals = summaryOf(reconciled).totals;
    expect(totals.notes_count).toEqual({ expected: '3', found: '3', difference: '0' });
    expect(totals.statements_gross_amount).toEqual({ expected: '12149', found: '12149', difference: '0' });
  });

  it('fails every item of a request refused without naming an item (a Paused supplier), and nothing is stored', async () => {
    const paused = await createTenant(app, {
      status: 'Paused',
      accounts: [{ external_account_number: 'P-1', state: 'imported', open_statement_from: '2019-10-01' }],
    });
    const file = writeLines(
      world.dir,
      'paused.ndjson',
      [1, 2, 3].map((i) => JSON.stringify(transaction(paused.supplier, 'P-1', `P-${i}`, '1.00'))),
    );
    const journal = path.join(world.dir, 'paused');
    const run = await runClient(app.baseUrl, paused.apiKey, [
      'send',
      'transactions',
      file,
      '--journal',
      journal,
      '--json',
    ]);
    expect(run.code).toBe(1);
    expect(readResults(journal, 'failed').map((f) => [f.line, f.code])).toEqual([
      [1, 'import_supplier_migration_not_ongoing'],
      [2, 'import_supplier_migration_not_ongoing'],
      [3, 'import_supplier_migration_not_ongoing'],
    ]);
    expect(await storedTransactions(paused.supplier)).toBe(0);
  });

  it('validates a file offline with the service schemas and writes the same failed.ndjson', async () => {
    const { supplier } = world.tenant;
    const file = writeLines(world.dir, 'to-validate.ndjson', [
      JSON.stringify(transaction(supplier, 'ANY', 'V-1', '1.00')),
      JSON.stringify({ ...transaction(supplier, 'ANY', 'V-2', '1.00'), transaction_date: '2024-02-30' }),
      'not json',
      JSON.stringify({ transaction_id: 'V-4' }),
    ]);
    const journal = path.join(world.dir, 'validated');
    const run = await runClient(app.baseUrl, 'unused', [
      'validate',
      'transactions',
      file,
      '--journal',
      journal,
      '--json',
    ]);
    expect(run.code).toBe(1);
    expect(readResults(journal, 'failed').map((f) => [f.line, f.code, f.attr])).toEqual([
      [2, 'invalid', 'transaction_date'],
      [3, 'parse_error', 'non_field_errors'],
      [4, 'required', 'import_supplier'],
    ]);
  });

  it('runs as the installed `data-import-client` command (package.json bin)', async () => {
    const bin = (
      JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { bin: Record<string, string> }
    ).bin['data-import-client']!;
    const run = await new Promise<{ code: number | null; stdout: string }>((resolve) =>
      execFile(process.execPath, [path.join(__dirname, '../..', bin), 'help'], (err, stdout) =>
        resolve({ code: err ? Number(err.code) : 0, stdout }),
      ),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: data-import-client <command>/);
  });

  it('exits 2 on usage errors, a changed input included, without sending anything', async () => {
    const file = writeLines(world.dir, 'empty.ndjson', []);
    const cases = [
      ['send', 'invoices', file],
      ['send', 'notes', file, '--batch', '0'],
      ['send', 'notes', path.join(world.dir, 'missing.ndjson')],
      ['send', 'notes', file, '--no-such-option'],
      ['resume', path.join(world.dir, 'not-a-run')],
    ];
    for (const args of cases) {
      const run = await runClient(app.baseUrl, world.tenant.apiKey, args);
      expect([args.join(' '), run.code]).toEqual([args.join(' '), 2]);
    }
    const changed = writeLines(world.dir, 'changes.ndjson', [
      JSON.stringify(transaction(world.tenant.supplier, world.accounts[0]!, 'C-1', '1.00')),
    ]);
    const journal = path.join(world.dir, 'changed-run');
    expect(
      (await runClient(app.baseUrl, world.tenant.apiKey, ['send', 'transactions', changed, '--journal', journal])).code,
    ).toBe(0);
    writeLines(world.dir, 'changes.ndjson', [
      JSON.stringify(transaction(world.tenant.supplier, world.accounts[0]!, 'C-2', '1.00')),
    ]);
    const resumed = await runClient(app.baseUrl, world.tenant.apiKey, ['resume', journal]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain('checksum differs');

    const noUrl = await runClient('', world.tenant.apiKey, ['send', 'notes', file]);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('DATA_IMPORT_URL');
  });
});
