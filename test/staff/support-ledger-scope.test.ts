// The run ledger records the account a write names as its endpoint reads it and only when the caller
// may see it, and the support page reads it scoped to the supplier's organisations: a refused v2
// schedule shows on its account's page with its code and detail; another organisation's writes naming
// a supplier it may not use (each answered 404) leave no trace on that supplier's pages, its rejections
// CSV or its refusal metrics; a supplier's runs table counts a run as its run page does.
import { account } from '../account-import/account.fixture';
import { createTenant, request, type Tenant } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { until } from '../helpers/until';
import { signedIn, type StaffClient, startStaffApp, type StaffTestApp } from './staff-app';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
const unescape = (s: string) => s.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&#39;', "'");
const cells = (table: string) =>
  [...table.matchAll(/<tr>((?:<td>[\s\S]*?<\/td>\s*)+)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => unescape(c[1]!.replace(/<[^>]+>/g, ''))),
  );
const tableOf = (text: string, caption: string) =>
  new RegExp(`<caption>${caption}[\\s\\S]*?</table>`).exec(text)?.[0] ?? '';

describe('the run ledger on the support page: what the caller may see, with the refusal itself', () => {
  let app: StaffTestApp;
  let support: StaffClient;
  let owner: Tenant;
  let other: Tenant;

  const ledgerRows = (runId: string) => app.db.prisma.runLedgerEntry.findMany({ where: { runId } });
  const recorded = (runId: string, n: number) =>
    until(`${n} ledger rows of ${runId}`, async () => ((await ledgerRows(runId)).length >= n ? true : undefined));
  const refusalsOf = async (supplier: string) => {
    const res = await request(app.baseUrl, 'GET', '/metrics', {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const series = new RegExp(`http_refusals_total\\{[^}]*supplier="${supplier}"\\} (\\d+)`, 'g');
    return [...(res.body as string).matchAll(series)].reduce((sum, m) => sum + Number(m[1]), 0);
  };

  beforeAll(async () => {
    app = await startStaffApp({ METRICS_TOKEN });
    support = (await signedIn(app, 'support')).client;
    owner = await createTenant(app.asTestApp(), {
      accounts: [{ external_account_number: 'REAL-1', state: 'imported' }],
    });
    other = await createTenant(app.asTestApp());
  });
  afterAll(() => app.close());

  it("shows a refused v2 schedule's account on the support page with its code, field, detail, run and request", async () => {
    const runId = `v2-${uniqueSuffix()}`;
    const external = `NEVER-${uniqueSuffix()}`;
    const payload = { ...account(owner.supplier, external), billing_postcode: 'NOT A CODE' };
    const res = await request(app.baseUrl, 'POST', '/v2/data-import/accounts/', {
      token: owner.token,
      body: { payload },
      headers: { 'data-import-run-id': runId },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'invalid_postcode' })]));
    await recorded(runId, 1);
    expect(await ledgerRows(runId)).toEqual([
      expect.objectContaining({
        supplierCode: owner.supplier,
        externalAccountNumber: external,
        code: 'invalid_postcode',
      }),
    ]);

    const page = await support.get(`/support/suppliers/${owner.supplier}/account?number=${external}`);
    // No process was ever staged (the search answers 404), and the page says why.
    expect(page.status).toBe(404);
    expect(page.text).toContain('It was never staged: these refusals named it.');
    const rows = cells(tableOf(page.text, 'Refused writes'));
    expect(rows).toEqual([
      [
        expect.any(String),
        'v2/accounts',
        '400',
        'invalid_postcode',
        'billing_postcode',
        'Enter a valid UK postcode.',
        runId,
        res.headers.get('x-request-id'),
      ],
    ]);
    const byCode = await support.get(`/support/suppliers/${owner.supplier}/rejections/`);
    expect(cells(tableOf(byCode.text, 'Accounts with rejections')).map((r) => r.slice(0, 2))).toContainEqual([
      'invalid_postcode',
      external,
    ]);
  });

  it("leaves no trace of another organisation's 404 writes on the supplier's pages, CSV and metrics", async () => {
    const ownRun = `own-${uniqueSuffix()}`;
    const ownWrite = await request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', {
      token: owner.token,
      body: { import_supplier: owner.supplier, external_account_number: 'REAL-1', notes: [{ body: '' }] },
      headers: { 'data-import-run-id': ownRun },
    });
    expect(ownWrite.status).toBe(400);
    await recorded(ownRun, 1);
    const refusalsBefore = await refusalsOf(owner.supplier);

    const probes = Array.from({ length: 21 }, (_, i) => `probe-${i}-${uniqueSuffix()}`);
    for (const runId of probes) {
      const res = await request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', {
        token: other.token,
        body: { import_supplier: owner.supplier, external_account_number: 'REAL-1', notes: [{ body: 'x' }] },
        headers: { 'data-import-run-id': runId },
      });
      expect(res.status).toBe(404);
    }
    for (const runId of probes) await recorded(runId, 1);
    // Recorded for the organisation that sent them, without the supplier and account it may not see.
    const planted = (await Promise.all(probes.map(ledgerRows))).flat();
    expect(planted).toHaveLength(probes.length);
    for (const row of planted) {
      expect(row).toMatchObject({ supplierCode: null, externalAccountNumber: null, code: 'account_not_found' });
    }

    const supplierPage = await support.get(`/support/suppliers/${owner.supplier}/`);
    const runs = cells(tableOf(supplierPage.text, 'Latest 20 runs')).map((r) => r[0]);
    expect(runs).toContain(ownRun);
    expect(runs.filter((r) => probes.includes(r!))).toEqual([]);
    const accountPage = await support.get(`/support/suppliers/${owner.supplier}/account?number=REAL-1`);
    expect(cells(tableOf(accountPage.text, 'Refused writes')).map((r) => r[3])).toEqual(['blank']);
    const csv = await support.get(`/support/suppliers/${owner.supplier}/rejections.csv`);
    expect(csv.text.split('\r\n').filter((l) => l.includes('account_not_found'))).toEqual([]);
    expect(await refusalsOf(owner.supplier)).toBe(refusalsBefore);
  });

  it("counts a run on the supplier's runs table as its run page does", async () => {
    const runId = `mixed-${uniqueSuffix()}`;
    const post = (body: object) =>
      request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', {
        token: owner.token,
        body,
        headers: { 'data-import-run-id': runId },
      });
    expect(
      (await post({ import_supplier: owner.supplier, external_account_number: 'REAL-1', notes: [{ body: 'a' }] }))
        .status,
    ).toBe(201);
    // A body naming no valid supplier: the run's, recorded without an account.
    expect((await post({ import_supplier: 42, notes: [{ body: 'b' }] })).status).toBe(400);
    await recorded(runId, 2);
    const supplierPage = await support.get(`/support/suppliers/${owner.supplier}/`);
    const row = cells(tableOf(supplierPage.text, 'Latest 20 runs')).find((r) => r[0] === runId)!;
    const runPage = await request(app.baseUrl, 'GET', `/v1/data-import/runs/${runId}/`, { token: owner.token });
    expect(runPage.status).toBe(200);
    expect(row[2]).toBe(String(runPage.body.requests));
    expect(row[3]).toBe(String(runPage.body.accounts.count));
    expect([row[4], row[5]]).toEqual([String(runPage.body.items.written), String(runPage.body.items.refused)]);
  });
});
