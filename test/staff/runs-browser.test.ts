// A real browser (Debian's Chromium driven by playwright-core) follows a run from a supplier's page:
// the run, its refused item at its field, the account it names, and the rejections by code.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createTenant, request, type Tenant } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { until } from '../helpers/until';
import { createStaff, startStaffApp, type StaffTestApp } from './staff-app';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'];

describe('a run on the support page, in a browser', () => {
  let app: StaffTestApp;
  let profile: string;
  let browser: BrowserContext;
  let page: Page;
  let tenant: Tenant;
  const runId = `browser-run-${uniqueSuffix()}`;

  beforeAll(async () => {
    app = await startStaffApp();
    tenant = await createTenant(app.asTestApp(), {
      accounts: [{ external_account_number: 'ACC-9', state: 'imported' }],
    });
    const refused = await request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', {
      token: tenant.token,
      body: {
        import_supplier: tenant.supplier,
        external_account_number: 'ACC-9',
        notes: [{ body: 'a' }, { body: '' }],
      },
      headers: { 'data-import-run-id': runId },
    });
    expect(refused.status).toBe(400);
    await until('the refusal recorded', async () =>
      (await app.db.prisma.runLedgerEntry.count({ where: { runId } })) > 0 ? true : undefined,
    );
    profile = await mkdtemp(path.join(tmpdir(), 'staff-runs-browser-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true });
    page = browser.pages()[0] ?? (await browser.newPage());
  });
  afterAll(async () => {
    await browser?.close();
    await rm(profile, { recursive: true, force: true });
    await app.close();
  });

  it('opens the run from the supplier page, then the account it refused and the rejections by code', async () => {
    const user = await createStaff(app, 'support');
    await page.goto(`${app.baseUrl}/support/suppliers/${tenant.supplier}/`);
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await Promise.all([
      page.waitForURL(`${app.baseUrl}/support/suppliers/${tenant.supplier}/`),
      page.keyboard.press('Enter'),
    ]);

    await Promise.all([page.waitForURL(/\/runs\/\d+\//), page.getByRole('link', { name: runId }).click()]);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(`Run ${runId}`);
    const refused = page.getByRole('table', { name: /Refused items/ });
    await expect(refused.locator('tbody tr').first().textContent()).resolves.toMatch(
      /ACC-9.*notes\/create.*blank.*notes\.1\.body/s,
    );

    await page.goto(`${app.baseUrl}/support/suppliers/${tenant.supplier}/`);
    await Promise.all([
      page.waitForURL(/\/rejections\/$/),
      page.getByRole('link', { name: 'Accounts with rejections, by code' }).click(),
    ]);
    await Promise.all([page.waitForURL(/\/account\?number=ACC-9$/), page.getByRole('link', { name: 'ACC-9' }).click()]);
    const writes = page.getByRole('table', { name: /Refused writes/ });
    await expect(writes.locator('tbody tr').first().textContent()).resolves.toMatch(
      /blank.*notes\.1\.body.*browser-run-/s,
    );
  });
});
