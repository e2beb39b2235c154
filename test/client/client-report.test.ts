// `report --supplier X`: the sign-off pack from real runs against the real service, opened in a real
// browser (Debian's Chromium driven by playwright-core); its screenshot goes to test-artefacts/.
// Text from the files (account numbers holding markup and spreadsheet formulas) must show as text.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { account, applyCatalogue, type Json } from '../account-import/account.fixture';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { runClient, summaryOf, transaction, writeLines } from './client.fixture';

const CHROMIUM = '/usr/bin/chromium';
const ARTEFACTS = path.join(__dirname, '../../test-artefacts');
const MARKUP = '<img src=x onerror=alert(1)>';
const FORMULA = '=HYPERLINK("http://example.com")<i>x</i>';

let app: TestApp;
let tenant: Tenant;
let dir: string;
let browser: BrowserContext | undefined;

beforeAll(async () => {
  app = await startTestApp({}, { workers: true });
  await applyCatalogue(app);
  tenant = await createTenant(app);
  dir = mkdtempSync(path.join(tmpdir(), 'data-import-report-'));
});
afterAll(async () => {
  await browser?.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

function plainAccount(external: string): Json {
  const a = account(tenant.supplier, external);
  delete a.supply_addresses;
  return a;
}

it('writes one HTML page and one CSV a supplier can approve, escaped and formula-safe, that a browser shows', async () => {
  const runsDir = path.join(dir, 'runs');
  const withInstruction = plainAccount('PACK-2');
  withInstruction.payment_instructions = [{ vendor: 'BOTTOMLINE_PTX', type: 'DIRECT_DEBIT', reference: 'DD-1' }];
  const refused = { ...plainAccount(MARKUP), billing_postcode: 'NOT A POSTCODE' };
  const accounts = writeLines(dir, 'accounts.ndjson', [
    JSON.stringify(plainAccount('PACK-1')),
    JSON.stringify(withInstruction),
    JSON.stringify(plainAccount(FORMULA)),
    JSON.stringify(refused),
  ]);
  const sent = await runClient(app.baseUrl, tenant.apiKey, ['send', 'accounts', accounts, '--runs-dir', runsDir]);
  expect(sent.code).toBe(1);
  const transactions = writeLines(dir, 'transactions.ndjson', [
    JSON.stringify(transaction(tenant.supplier, 'PACK-1', 'T-1', '12.50')),
    JSON.stringify(transaction(tenant.supplier, 'PACK-1', 'T-2', 'twelve')),
  ]);
  await runClient(app.baseUrl, tenant.apiKey, ['send', 'transactions', transactions, '--runs-dir', runsDir]);

  const out = path.join(dir, 'signoff');
  const report = await runClient(app.baseUrl, tenant.apiKey, [
    'report',
    '--supplier',
    tenant.supplier,
    '--runs-dir',
    runsDir,
    '--out',
    out,
    '--json',
  ]);

  expect(report.stderr).toBe('');
  expect(summaryOf(report)).toMatchObject({
    accounts: 3,
    accounts_differing: 0,
    failed_lines: 2,
    never_created: 1,
    runs: 2,
  });
  expect(report.code).toBe(1);
  const csv = readFileSync(`${out}.csv`, 'utf8').split('\r\n');
  const columns = csv[0]!.split(',');
  expect(columns.slice(0, 7)).toEqual([
    'external_account_number',
    'platform_account_number',
    'status',
    'account_created',
    'failed_lines',
    'failure_codes',
    'payment_instruction',
  ]);
  // The formula starts with a quote, so a spreadsheet shows it as text.
  expect(csv.some((l) => l.startsWith(`"'=HYPERLINK(""http://example.com"")<i>x</i>"`))).toBe(true);
  const pack1 = csv.find((l) => l.startsWith('PACK-1,'))!.split(',');
  expect(pack1[columns.indexOf('failed_lines')]).toBe('1');
  expect(pack1[columns.indexOf('transactions_count_found')]).toBe('4');
  expect(csv.find((l) => l.startsWith('PACK-2,'))!.split(',')[6]).toBe('active');

  browser = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`file://${out}.html`);
  await expect(page.locator('h1').innerText()).resolves.toContain(tenant.supplier);
  await expect(page.locator('#accounts + table tbody tr').count()).resolves.toBe(3);
  await expect(page.locator('img, script, i').count()).resolves.toBe(0);
  await expect(page.locator('#never-created + table').innerText()).resolves.toContain(MARKUP);
  const failures = await page.locator('#failures + table').innerText();
  expect(failures).toMatch(/^invalid\t1\ttransactions transactions.ndjson:2 PACK-1 amount: /m);
  expect(failures).toMatch(/^invalid_postcode\t1\taccounts accounts.ndjson:4 /m);
  await expect(page.locator('#accounts + table').innerText()).resolves.toContain(FORMULA);
  await expect(page.locator('#payment-instructions + p').innerText()).resolves.toMatch(/^1 accounts have an active/);
  await expect(page.locator('#runs + table tbody tr').count()).resolves.toBe(2);
  mkdirSync(ARTEFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTEFACTS, 'client-signoff-report.png'), fullPage: true });
  expect(dialogs).toEqual([]);
});
