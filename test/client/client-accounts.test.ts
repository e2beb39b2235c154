// `send accounts`: accounts scheduled through the v2 endpoint and followed to a final status, against
// the real API, workers, PostgreSQL and Redis; failures with the service's reason and the original
// record; dry runs that create nothing; a SIGKILL halfway that resume finishes with nothing lost or doubled.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { account, applyCatalogue, validateV2, type Json } from '../account-import/account.fixture';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { until } from '../helpers/until';
import { readResults, runClient, startClient, summaryOf, writeLines } from './client.fixture';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

let app: TestApp;
let dir: string;
const proxies: FaultProxy[] = [];

beforeAll(async () => {
  app = await startTestApp({}, { workers: true });
  await applyCatalogue(app);
  dir = mkdtempSync(path.join(tmpdir(), 'data-import-accounts-'));
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An account without meter points (they are unique per supplier), so any number of them can be created. */
function plainAccount(supplier: string, external: string): Json {
  const a = account(supplier, external);
  delete a.supply_addresses;
  return a;
}

const accountsFile = (tenant: Tenant, tag: string, count: number, extra: string[] = []) =>
  writeLines(dir, `${tag}.ndjson`, [
    ...Array.from({ length: count }, (_, i) => JSON.stringify(plainAccount(tenant.supplier, `${tag}-${i}`))),
    ...extra,
  ]);

async function created(supplier: string): Promise<Map<string, string>> {
  const { rows } = await app.db.pool.query<{ external_account_number: string; platform_account_number: string }>(
    `SELECT p.external_account_number, a.platform_account_number FROM accounts a
       JOIN account_import_processes p ON p.id = a.process_id WHERE p.supplier_code = $1`,
    [supplier],
  );
  return new Map(rows.map((r) => [r.external_account_number, r.platform_account_number]));
}

it('creates every account, writes its platform number, and fails a refused one with the reason and its record', async () => {
  const tenant = await createTenant(app);
  const bad = { ...plainAccount(tenant.supplier, 'OK-bad'), billing_postcode: 'NOT A POSTCODE' };
  const file = accountsFile(tenant, 'OK', 5, [JSON.stringify(bad), '{not json']);
  const journal = path.join(dir, 'ok');

  const run = await runClient(app.baseUrl, tenant.apiKey, ['send', 'accounts', file, '--journal', journal, '--json']);

  expect(summaryOf(run)).toMatchObject({ kind: 'accounts', succeeded: 5, failed: 2, unprocessed: 0, exit_code: 1 });
  const stored = await created(tenant.supplier);
  expect(stored.size).toBe(5);
  const succeeded = readResults(journal, 'succeeded');
  expect(succeeded.map((r) => r.line).sort()).toEqual([1, 2, 3, 4, 5]);
  for (const r of succeeded) {
    expect(r).toMatchObject({ status: 'PROCESSED', import_supplier: tenant.supplier });
    expect(r.platform_account_number).toBe(stored.get(r.external_account_number));
  }
  const failed = readResults(journal, 'failed').sort((a, b) => a.line - b.line);
  expect(failed[0]).toMatchObject({ line: 6, external_account_number: 'OK-bad', code: 'invalid_postcode' });
  expect(failed[0]!.errors).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'invalid_postcode' })]));
  expect(failed[0]!.record).toEqual(bad);
  expect(failed[1]).toMatchObject({ line: 7, code: 'parse_error' });

  // reconcile counts what each created account carries, and says per account it was created and its opening balance.
  const report = path.join(dir, 'accounts-report.csv');
  const reconciled = await runClient(app.baseUrl, tenant.apiKey, [
    'reconcile',
    '--supplier',
    tenant.supplier,
    journal,
    '--out',
    report,
    '--json',
  ]);
  expect(summaryOf(reconciled)).toMatchObject({ accounts: 5, accounts_differing: 0 });
  expect(summaryOf(reconciled).totals.opening_balance).toEqual({ expected: '150', found: '150', difference: '0' });
  expect(summaryOf(reconciled).totals.transactions_count).toEqual({ expected: '15', found: '15', difference: '0' });
  expect(reconciled.code).toBe(0);
  const [header, ...rows] = readFileSync(report, 'utf8').trim().split('\r\n');
  const columns = header!.split(',');
  const cell = (row: string, name: string) => row.split(',')[columns.indexOf(name)];
  expect(rows.map((r) => [cell(r, 'account_created'), cell(r, 'opening_balance_found')])).toEqual(
    Array(5).fill(['yes', '30']),
  );
});

it('records a creation the job refuses with latest_error, and sending the file again adds nothing', async () => {
  const tenant = await createTenant(app);
  // Two accounts with the same meter points: the first is created, the second refused.
  const first = account(tenant.supplier, 'MP-1');
  const second = account(tenant.supplier, 'MP-2');
  const file = writeLines(dir, 'mp.ndjson', [JSON.stringify(first), JSON.stringify(second)]);
  const journal = path.join(dir, 'mp');

  const run = await runClient(app.baseUrl, tenant.apiKey, [
    'send',
    'accounts',
    file,
    '--journal',
    journal,
    '--concurrency',
    '1',
    '--json',
  ]);

  expect(summaryOf(run)).toMatchObject({ succeeded: 1, failed: 1, unprocessed: 0 });
  const failure = readResults(journal, 'failed')[0]!;
  expect(failure).toMatchObject({ line: 2, external_account_number: 'MP-2' });
  expect(failure.code).toMatch(/supply_point|meter_point/);
  expect(failure.detail).not.toBe('');
  expect(failure.record).toEqual(second);

  const again = await runClient(app.baseUrl, tenant.apiKey, ['send', 'accounts', file, '--json', '--runs-dir', dir]);
  expect(summaryOf(again)).toMatchObject({ succeeded: 0, skipped: 1, failed: 1 });
  expect((await created(tenant.supplier)).size).toBe(1);
});

it('--dry-run checks every account through the job and creates none; CSV and a bad window are usage errors', async () => {
  const tenant = await createTenant(app);
  const file = accountsFile(tenant, 'DRY', 3);
  const journal = path.join(dir, 'dry');

  const run = await runClient(app.baseUrl, tenant.apiKey, [
    'send',
    'accounts',
    file,
    '--dry-run',
    '--journal',
    journal,
    '--json',
  ]);

  expect(summaryOf(run)).toMatchObject({ succeeded: 3, failed: 0, exit_code: 0 });
  expect(readResults(journal, 'succeeded').map((r) => r.status)).toEqual(Array(3).fill('DRY_RUN_SUCCEEDED'));
  expect((await created(tenant.supplier)).size).toBe(0);

  const csv = writeLines(dir, 'accounts.csv', ['import_supplier,external_account_number', `${tenant.supplier},X`]);
  const refused = await runClient(app.baseUrl, tenant.apiKey, ['send', 'accounts', csv]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/NDJSON only/);
  const badWindow = await runClient(app.baseUrl, tenant.apiKey, ['send', 'accounts', file, '--window-end', 'soon']);
  expect(badWindow.code).toBe(2);
  expect(badWindow.stderr).toMatch(/--window-end/);
});

it('after a SIGKILL halfway, resume follows what was scheduled, sends what was not, and creates each account once', async () => {
  const tenant = await createTenant(app);
  const p = await startFaultProxy(app.baseUrl, (req) =>
    req.method === 'POST' && req.url!.startsWith('/v2/') ? { holdMs: 150 } : 'pass',
  );
  proxies.push(p);
  const count = 24;
  const file = accountsFile(tenant, 'KILL', count);
  const journal = path.join(dir, 'killed');
  const client = startClient(p.baseUrl, tenant.apiKey, [
    'send',
    'accounts',
    file,
    '--journal',
    journal,
    '--concurrency',
    '2',
  ]);
  const scheduledLines = () => {
    try {
      return readFileSync(path.join(journal, 'scheduled.ndjson'), 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };
  await until('a few scheduled accounts', () => (scheduledLines() >= 6 ? true : undefined));
  process.kill(client.pid, 'SIGKILL');
  expect((await client.done).signal).toBe('SIGKILL');
  expect(scheduledLines()).toBeLessThan(count);

  const before = p.log.length;
  const resumed = await runClient(p.baseUrl, tenant.apiKey, ['resume', journal, '--json']);

  const summary = summaryOf(resumed);
  expect(summary).toMatchObject({ failed: 0, unprocessed: 0, exit_code: 0 });
  // An account whose schedule was in flight at the kill may be created already: resume finds it there.
  expect(summary.succeeded + summary.skipped).toBe(count);
  const succeeded = readResults(journal, 'succeeded');
  expect(succeeded.every((r) => /^A-/.test(r.platform_account_number))).toBe(true);
  const lines = succeeded.map((r) => r.line);
  expect(lines).toHaveLength(count);
  expect(new Set(lines).size).toBe(count);
  const stored = await created(tenant.supplier);
  expect([...stored.keys()].sort()).toEqual(Array.from({ length: count }, (_, i) => `KILL-${i}`).sort());
  // Within a run the status endpoint is asked about one account at most once a second (its looks back off).
  const looks = new Map<string, number[]>();
  for (const e of p.log
    .slice(before)
    .filter((e) => e.method === 'GET' && e.path.startsWith('/v2/data-import/accounts/')))
    looks.set(e.path, [...(looks.get(e.path) ?? []), e.at]);
  expect(looks.size).toBeGreaterThan(0);
  const gaps = [...looks.values()].flatMap((at) => at.slice(1).map((t, i) => t - at[i]!));
  expect(gaps.filter((gap) => gap < 1000)).toEqual([]);
});

it('validate accounts checks a file offline with the schema the service stages with: every fault, as the service names it', async () => {
  const tenant = await createTenant(app);
  const good = plainAccount(tenant.supplier, 'V-1');
  const bad = plainAccount(tenant.supplier, 'V-2');
  bad.billing_postcode = 'NOT A POSTCODE';
  bad.customers[0].mobile = '12';
  const file = writeLines(dir, 'validate.ndjson', [JSON.stringify(good), JSON.stringify(bad)]);
  const journal = path.join(dir, 'validate');

  const run = await runClient('http://127.0.0.1:9', 'unused', ['validate', 'accounts', file, '--journal', journal]);

  expect(run.code).toBe(1);
  const failed = readResults(journal, 'failed');
  expect(failed.map((r) => r.line)).toEqual([2]);
  const service = await validateV2(app, tenant, { payload: bad });
  expect(service.status).toBe(400);
  const codes = (errors: { attr: string; code: string }[]) => errors.map((e) => `${e.attr}:${e.code}`).sort();
  expect(codes(failed[0]!.errors)).toEqual(codes(service.body.errors));
  expect(codes(failed[0]!.errors)).toEqual([
    'billing_postcode:invalid_postcode',
    'customers.0.mobile:invalid_phone_number',
  ]);
});
