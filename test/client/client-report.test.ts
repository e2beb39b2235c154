// `report --supplier X`: the sign-off pack from real runs against the real service, opened in a real
// browser (Debian's Chromium driven by playwright-core); its screenshot and PDF go to test-artefacts/.
// Text from the files (account numbers holding markup and spreadsheet formulas) must show as text.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

const report = (runsDir: string, out: string, ...more: string[]) =>
  runClient(app.baseUrl, tenant.apiKey, [
    'report',
    '--supplier',
    tenant.supplier,
    '--runs-dir',
    runsDir,
    '--out',
    out,
    '--json',
    ...more,
  ]);

async function openPage(file: string) {
  browser ??= await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const page = await browser.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`file://${file}`);
  return { page, dialogs };
}

it('writes a pack that keeps failures outstanding until the same items succeed, and dry runs apart; escaped, formula-safe, in a browser and as a PDF', async () => {
  const runsDir = path.join(dir, 'runs');
  const send = (kind: string, file: string, ...more: string[]) =>
    runClient(app.baseUrl, tenant.apiKey, ['send', kind, file, '--runs-dir', runsDir, ...more]);
  const withInstruction = plainAccount('PACK-2');
  withInstruction.payment_instructions = [{ vendor: 'BOTTOMLINE_PTX', type: 'DIRECT_DEBIT', reference: 'DD-1' }];
  const refused = { ...plainAccount(MARKUP), billing_postcode: 'NOT A POSTCODE' };
  const accounts = writeLines(dir, 'accounts.ndjson', [
    JSON.stringify(plainAccount('PACK-1')),
    JSON.stringify(withInstruction),
    JSON.stringify(plainAccount(FORMULA)),
    JSON.stringify(refused),
  ]);
  expect((await send('accounts', accounts)).code).toBe(1);
  const transactions = writeLines(dir, 'transactions.ndjson', [
    JSON.stringify(transaction(tenant.supplier, 'PACK-1', 'T-1', '12.50')),
    JSON.stringify(transaction(tenant.supplier, 'PACK-1', 'T-2', 'twelve')),
  ]);
  expect((await send('transactions', transactions)).code).toBe(1);
  // A rehearsal of a later file: its refusal is a finding, not a failure, and it stores nothing.
  const rehearsed = writeLines(dir, 'rehearsal.ndjson', [
    JSON.stringify(transaction(tenant.supplier, 'PACK-1', 'T-9', 'nine')),
  ]);
  expect((await send('transactions', rehearsed, '--dry-run')).code).toBe(1);

  const before = path.join(dir, 'before');
  const first = await report(runsDir, before);
  expect(first.stderr).toBe('');
  expect(summaryOf(first)).toMatchObject({
    accounts: 3,
    accounts_differing: 0,
    outstanding_failed_lines: 2,
    resolved_failed_lines: 0,
    dry_run_failed_lines: 1,
    never_created: 1,
    runs: 3,
  });
  expect(first.code).toBe(1);
  const csv = readFileSync(`${before}.csv`, 'utf8').split('\r\n');
  const columns = csv[0]!.split(',');
  expect(columns.slice(0, 7)).toEqual([
    'external_account_number',
    'platform_account_number',
    'status',
    'account_created',
    'outstanding_failed_lines',
    'outstanding_failure_codes',
    'payment_instruction',
  ]);
  // The formula starts with a quote, so a spreadsheet shows it as text.
  expect(csv.some((l) => l.startsWith(`"'=HYPERLINK(""http://example.com"")<i>x</i>"`))).toBe(true);
  const pack1 = csv.find((l) => l.startsWith('PACK-1,'))!.split(',');
  expect(pack1[columns.indexOf('outstanding_failed_lines')]).toBe('1');
  expect(pack1[columns.indexOf('transactions_count_found')]).toBe('4');
  expect(csv.find((l) => l.startsWith('PACK-2,'))!.split(',')[6]).toBe('active');

  const { page, dialogs } = await openPage(`${before}.html`);
  await expect(page.locator('h1').innerText()).resolves.toContain(tenant.supplier);
  await expect(page.locator('#accounts + table tbody tr').count()).resolves.toBe(3);
  await expect(page.locator('img, script, i').count()).resolves.toBe(0);
  await expect(page.locator('#never-created + table').innerText()).resolves.toContain(MARKUP);
  const outstanding = await page.locator('#outstanding + table').innerText();
  expect(outstanding).toMatch(/^invalid\t1\ttransactions transactions.ndjson line 2, account PACK-1: amount: /m);
  // The field once, not "billing_postcode: billing_postcode: …".
  expect(outstanding).toMatch(/^invalid_postcode\t1\taccounts accounts.ndjson line 4, account .*: billing_postcode: /m);
  expect(outstanding).not.toMatch(/billing_postcode: billing_postcode/);
  await expect(page.locator('#dry-runs + table').innerText()).resolves.toMatch(/^invalid\t1\ttransactions rehearsal/m);
  await expect(page.locator('.verdict').innerText()).resolves.toBe(
    '0 of 3 accounts differ, 2 failed lines outstanding, 1 account never created.',
  );
  await expect(page.locator('#accounts + table').innerText()).resolves.toContain(FORMULA);
  await expect(page.locator('#payment-instructions + p').innerText()).resolves.toMatch(
    /^1 account with an active payment instruction/,
  );
  await expect(page.locator('#runs + table tbody tr.dry').count()).resolves.toBe(1);
  expect(dialogs).toEqual([]);

  // The fixes, from a fix file each: the account with its postcode, the transaction with its amount.
  expect(
    (await send('accounts', writeLines(dir, 'accounts-fix.ndjson', [JSON.stringify(plainAccount(MARKUP))]))).code,
  ).toBe(0);
  const fixed = transaction(tenant.supplier, 'PACK-1', 'T-2', '12.00');
  expect((await send('transactions', writeLines(dir, 'transactions-fix.ndjson', [JSON.stringify(fixed)]))).code).toBe(
    0,
  );

  const after = path.join(dir, 'after');
  const second = await report(runsDir, after, '--pdf', '--browser', CHROMIUM);
  expect(second.stderr).toBe('');
  expect(summaryOf(second)).toMatchObject({
    accounts: 4,
    accounts_differing: 0,
    outstanding_failed_lines: 0,
    resolved_failed_lines: 2,
    dry_run_failed_lines: 1,
    never_created: 0,
    runs: 5,
    pdf: `${after}.pdf`,
  });
  expect(second.code).toBe(0);
  const signed = await openPage(`${after}.html`);
  await expect(signed.page.locator('.verdict').innerText()).resolves.toBe(
    'Every account matches its files; no failure is outstanding (2 failed lines resolved by a later run).',
  );
  await expect(signed.page.locator('#resolved + table tbody tr').count()).resolves.toBe(2);
  mkdirSync(ARTEFACTS, { recursive: true });
  await signed.page.screenshot({ path: path.join(ARTEFACTS, 'client-signoff-report.png'), fullPage: true });
  const pdf = readFileSync(`${after}.pdf`);
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  expect(pdf.length).toBeGreaterThan(1000);
  copyFileSync(`${after}.pdf`, path.join(ARTEFACTS, 'client-signoff-report.pdf'));
  expect(signed.dialogs).toEqual([]);
});
