// A real browser (Debian's Chromium driven by playwright-core) signs in with the keyboard and uses
// the support page and the queue dashboard as staff would.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { Worker } from 'bullmq';
import { applyFile } from '../../shared/admin/apply.use-case';
import { blockingConnection } from '../../shared/platform/queues';
import { uniqueSuffix } from '../helpers/context';
import { createStaff, startStaffApp, type StaffTestApp } from './staff-app';
import { transactionImportJob } from '../../shared/transactions/transaction.job';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

describe('staff pages in a browser', () => {
  let app: StaffTestApp;
  let profile: string;
  let browser: BrowserContext;
  let page: Page;
  const requested: string[] = [];
  const answered: string[] = [];
  const failed: { url: string; error?: string }[] = [];
  let supplier: string;
  let platformAccountNumber: string;

  beforeAll(async () => {
    app = await startStaffApp();
    supplier = `BROWSER_${uniqueSuffix()}`;
    const report = await applyFile(app.db, {
      suppliers: [{ code: supplier, document_root: `imports/${supplier}` }],
      accounts: [
        { import_supplier: supplier, external_account_number: 'ACC-1', state: 'staged' },
        { import_supplier: supplier, external_account_number: 'ACC-2', state: 'imported' },
      ],
    });
    platformAccountNumber = report.accounts.find(
      (a) => a.external_account_number === 'ACC-2',
    )!.platform_account_number!;
    const account = await app.db.prisma.account.findUniqueOrThrow({ where: { platformAccountNumber } });
    await app.db.prisma.note.create({
      data: { accountId: account.id, body: 'Moved house in March', createdAt: new Date() },
    });
    profile = await mkdtemp(path.join(tmpdir(), 'staff-browser-'));
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.on('request', (r) => requested.push(r.url()));
    page.on('response', (r) => answered.push(r.url()));
    page.on('requestfailed', (r) => failed.push({ url: r.url(), error: r.failure()?.errorText }));
  });
  afterAll(async () => {
    await browser?.close();
    await rm(profile, { recursive: true, force: true });
    await app.close();
  });

  // Evaluated in the page (a string: this project compiles without the DOM library).
  const focused = (): Promise<{ tag?: string; id?: string; text?: string; outline?: string }> =>
    page.evaluate(`(() => {
      const el = document.activeElement;
      return { tag: el?.tagName, id: el?.id, text: el?.textContent?.trim(), outline: el ? getComputedStyle(el).outlineStyle : undefined };
    })()`);

  it('signs in through the login form with the keyboard and finds an account via the search', async () => {
    const user = await createStaff(app, 'support');
    await page.goto(`${app.baseUrl}/support/`);
    expect(new URL(page.url()).pathname).toBe('/login');

    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'A', text: 'Skip to main content' });
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'INPUT', id: 'username', outline: 'solid' });
    await page.keyboard.type(user.username);
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'INPUT', id: 'password' });
    await page.keyboard.type(user.password);
    await Promise.all([page.waitForURL(`${app.baseUrl}/support/`), page.keyboard.press('Enter')]);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Import suppliers');

    // The skip link moves focus past the header to the page's content.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    expect(await focused()).toMatchObject({ tag: 'MAIN', id: 'main' });

    await page.getByRole('link', { name: supplier }).focus();
    await Promise.all([page.waitForURL(`${app.baseUrl}/support/suppliers/${supplier}/`), page.keyboard.press('Enter')]);
    await page.getByLabel('External account number').focus();
    await page.keyboard.type('ACC-2');
    await Promise.all([page.waitForURL(/\/account\?number=ACC-2$/), page.keyboard.press('Enter')]);

    const fact = (name: string) => page.locator(`dl.facts dt:text-is("${name}") + dd`).textContent();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Account ACC-2');
    await expect(fact('Status')).resolves.toBe('COMPLETED');
    await expect(fact('Platform account number')).resolves.toBe(platformAccountNumber);
    await expect(page.getByRole('table', { name: /Latest notes/ }).textContent()).resolves.toContain(
      'Moved house in March',
    );
    expect(requested.every((url) => url.startsWith(app.baseUrl))).toBe(true);
  });

  it('shows the queue dashboard read-only to support staff, with nothing fetched from outside', async () => {
    requested.length = 0;
    await page.goto(`${app.baseUrl}/admin/queues`);
    await page.getByText('Queues (read-only)').first().waitFor();
    await page.getByText('transactions').first().waitFor();
    expect(answered.some((url) => url.startsWith(`${app.baseUrl}/admin/queues/api/queues`))).toBe(true);
    // The dashboard's page links a web font from a CDN; the CSP stops the browser before it connects.
    const outside = requested.filter((url) => !url.startsWith(app.baseUrl));
    expect(answered.filter((url) => !url.startsWith(app.baseUrl))).toEqual([]);
    expect(failed.filter((f) => outside.includes(f.url)).map((f) => f.error)).toEqual(outside.map(() => 'csp'));
  });

  it('lets an operator, after the support user signs out, retry a failed job from the dashboard', async () => {
    const queue = app.queues.queue(transactionImportJob.queue);
    const job = await queue.add(
      transactionImportJob.name,
      { resultId: 'r-1', organisationId: 1, accountId: 1, payload: {} },
      { attempts: 1 },
    );
    const worker = new Worker(
      transactionImportJob.queue,
      async () => {
        throw new Error('boom');
      },
      { connection: blockingConnection(app.config), prefix: app.config.QUEUE_PREFIX },
    );
    await new Promise<void>((resolve) => worker.on('failed', () => resolve()));
    await worker.close();

    await page.goto(`${app.baseUrl}/logout`);
    await Promise.all([
      page.waitForURL(`${app.baseUrl}/login`),
      page.getByRole('button', { name: 'Sign out' }).last().click(),
    ]);
    const operator = await createStaff(app, 'operator');
    await page.getByLabel('Username').fill(operator.username);
    await page.getByLabel('Password').fill(operator.password);
    await Promise.all([page.waitForURL(`${app.baseUrl}/admin/queues`), page.getByLabel('Password').press('Enter')]);

    await page.goto(`${app.baseUrl}/admin/queues/queue/${transactionImportJob.queue}?status=failed`);
    await page.getByRole('button', { name: 'Retry all' }).click();
    const retried = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith('/retry/failed'));
    await page.getByRole('button', { name: 'Confirm' }).click();
    const response = await retried;
    // The dashboard's own client copied the XSRF-TOKEN cookie into the header the server checks.
    expect(response.request().headers()['x-xsrf-token']).toMatch(/^[0-9a-f]{64}$/);
    expect(response.status()).toBe(200);
    expect(await job.getState()).toBe('waiting');
  });

  it('shows the operator only the actions the server allows: no Add job, Empty, Obliterate or data edits', async () => {
    // Signed in as the operator of the test before.
    const queue = app.queues.queue(transactionImportJob.queue);
    await queue.add(
      transactionImportJob.name,
      { resultId: 'r-2', organisationId: 1, accountId: 1, payload: {} },
      {
        attempts: 1,
      },
    );
    const worker = new Worker(
      transactionImportJob.queue,
      async () => {
        throw new Error('boom');
      },
      { connection: blockingConnection(app.config), prefix: app.config.QUEUE_PREFIX },
    );
    await new Promise<void>((resolve) => worker.on('failed', () => resolve()));
    await worker.close();

    await page.goto(`${app.baseUrl}/admin/queues/queue/${transactionImportJob.queue}?status=failed`);
    // A failed job's card: of its four icons (retry, duplicate, update data, clean) the two allowed stay.
    await page.getByText('Retry all').first().waitFor();
    const icons = page.locator('ul[class*="jobActions-"]').first().locator('li');
    await icons.first().waitFor();
    const shown = await page.evaluate(
      `[...document.querySelector('ul[class*="jobActions-"]').children].map((li) => getComputedStyle(li).display !== 'none')`,
    );
    expect(shown).toEqual([true, false, false, true]);
    // The queue's menu: Pause and Retry stay, Add job, Empty and Obliterate go.
    await page.locator('button[aria-haspopup="menu"][class*="trigger-"]').first().click();
    // Shown: the menu is open.
    await page.getByText('Pause', { exact: true }).waitFor();
    for (const label of ['Add job', 'Empty', 'Obliterate', 'Set concurrency', 'Set rate limit'])
      expect([label, await page.getByText(label, { exact: true }).isVisible()]).toEqual([label, false]);
  });
});
