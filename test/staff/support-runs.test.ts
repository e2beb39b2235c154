// The support page's run-ledger views against real writes: a supplier's runs, one run opened, an
// account's refused writes with their field-level codes, the accounts with rejections by code (page and
// formula-safe CSV), and an account's creation process with its event history.
import { createTenant, request, type Tenant } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { until } from '../helpers/until';
import { signedIn, type StaffClient, startStaffApp, type StaffTestApp } from './staff-app';

const FORMULA = '=HYPERLINK("http://x")';
const unescape = (s: string) => s.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&#39;', "'");
const cells = (table: string) =>
  [...table.matchAll(/<tr>((?:<td>[\s\S]*?<\/td>\s*)+)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => unescape(c[1]!.replace(/<[^>]+>/g, ''))),
  );
const tableOf = (text: string, caption: string) =>
  new RegExp(`<caption>${caption}[\\s\\S]*?</table>`).exec(text)?.[0] ?? '';

describe('support page: runs, refused writes, rejections by code, account creation', () => {
  let app: StaffTestApp;
  let support: StaffClient;
  let tenant: Tenant;
  const runId = `run-${uniqueSuffix()}`;

  const write = (path: string, body: object) =>
    request(app.baseUrl, 'POST', `/v1/data-import/${path}/`, {
      token: tenant.token,
      body: { import_supplier: tenant.supplier, ...body },
      headers: { 'data-import-run-id': runId },
    });

  beforeAll(async () => {
    app = await startStaffApp();
    support = (await signedIn(app, 'support')).client;
    tenant = await createTenant(app.asTestApp(), {
      accounts: [
        { external_account_number: 'ACC-1', state: 'imported' },
        { external_account_number: FORMULA, state: 'imported' },
      ],
    });
    const statement = { statement_id: 'S-1', bill_period_from_date: '2020-01-01', bill_period_to_date: '2020-01-31' };
    const answers = [
      await write('notes/create', { external_account_number: 'ACC-1', notes: [{ body: 'kept' }] }),
      await write('notes/create', { external_account_number: 'ACC-1', notes: [{ body: 'ok' }, { body: '' }] }),
      await write('historical-statements/create', { external_account_number: 'ACC-1', statements: [statement] }),
      await write('historical-statements/create', { external_account_number: 'ACC-1', statements: [statement] }),
      await write('notes/create', { external_account_number: FORMULA, notes: [{ body: '' }] }),
    ];
    expect(answers.map((a) => a.status)).toEqual([201, 400, 201, 400, 400]);
    await until('the refusals recorded', async () =>
      (await app.db.prisma.runLedgerEntry.count({ where: { runId } })) === 6 ? true : undefined,
    );
  });
  afterAll(() => app.close());

  it("lists the supplier's runs and opens one: items by outcome and code, refused items at their field", async () => {
    const supplierPage = await support.get(`/support/suppliers/${tenant.supplier}/`);
    const runs = cells(tableOf(supplierPage.text, 'Latest 20 runs'));
    expect(runs).toEqual([
      [runId, expect.any(String), '5', '2', '2', '3', '0', expect.any(String), expect.any(String)],
    ]);
    const href = new RegExp(`<a href="([^"]+)">${runId}</a>`).exec(supplierPage.text)![1]!;
    const run = await support.get(href);
    expect(run.status).toBe(200);
    expect(cells(tableOf(run.text, 'Items by code'))).toEqual(
      expect.arrayContaining([
        ['refused', 'blank', '2', '2'],
        ['refused', 'historical_statement_already_exists', '1', '1'],
      ]),
    );
    expect(cells(tableOf(run.text, 'Refused items'))).toEqual(
      expect.arrayContaining([
        [expect.any(String), 'ACC-1', 'notes/create', 'blank', 'notes.1.body', expect.any(String), expect.any(String)],
        [
          expect.any(String),
          'ACC-1',
          'historical-statements/create',
          'historical_statement_already_exists',
          'statements.0.statement_id',
          expect.any(String),
          expect.any(String),
        ],
      ]),
    );
    expect(run.text).toContain('<span class="n">1</span> not written');
  });

  it("shows every refused write of an account, notes and statements included, with the field's own code", async () => {
    const res = await support.get(`/support/suppliers/${tenant.supplier}/account?number=ACC-1`);
    const rows = cells(tableOf(res.text, 'Refused writes'));
    expect(rows.map((r) => [r[1], r[2], r[3], r[4], r[6]])).toEqual([
      [
        'historical-statements/create',
        '400',
        'historical_statement_already_exists',
        'statements.0.statement_id',
        runId,
      ],
      ['notes/create', '400', 'blank', 'notes.1.body', runId],
    ]);
  });

  it('lists the accounts with rejections by code, and downloads them as formula-safe CSV', async () => {
    const page = await support.get(`/support/suppliers/${tenant.supplier}/rejections/`);
    expect(cells(tableOf(page.text, 'Accounts with rejections')).map((r) => r.slice(0, 4))).toEqual([
      ['blank', FORMULA, '1', 'notes.0.body'],
      ['blank', 'ACC-1', '1', 'notes.1.body'],
      ['historical_statement_already_exists', 'ACC-1', '1', 'statements.0.statement_id'],
    ]);
    const csv = await support.get(`/support/suppliers/${tenant.supplier}/rejections.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = csv.text.split('\r\n');
    expect(lines[0]).toBe('code,external_account_number,errors,example_attr,last_refused_at,last_run_id');
    expect(lines[1]).toMatch(
      new RegExp(`^blank,"'=HYPERLINK\\(""http://x""\\)",1,notes\\.0\\.body,[0-9TZ:-]+,${runId}$`),
    );
    expect(lines).toHaveLength(1 + 3 + 1);
  });

  it("shows an account's creation process: status, latest event and error, and the event history", async () => {
    const process = await app.db.prisma.accountImportProcess.findFirstOrThrow({
      where: { supplierCode: tenant.supplier, externalAccountNumber: 'ACC-1' },
    });
    const latestError = {
      code: 'meter_point_taken',
      detail: 'MPAN 123 belongs to another account',
      domain: 'import_process',
    };
    await app.db.prisma.accountImportProcess.update({
      where: { id: process.id },
      data: { status: 'ERRORED', latestError },
    });
    await app.db.prisma.accountImportProcessEvent.createMany({
      data: [
        {
          processId: process.id,
          event: 'EVENT_ACCOUNT_IMPORT_PROCESS_SCHEDULED',
          occurredAt: new Date('2026-11-01T10:00:00Z'),
        },
        {
          processId: process.id,
          event: 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED',
          occurredAt: new Date('2026-11-01T11:00:00Z'),
          data: latestError,
        },
      ],
    });
    const res = await support.get(`/support/suppliers/${tenant.supplier}/account?number=ACC-1`);
    const fact = (name: string) => unescape(new RegExp(`<dt>${name}</dt><dd>([^<]*)</dd>`).exec(res.text)?.[1] ?? '');
    expect(fact('Creation status')).toBe('ERRORED');
    expect(fact('Latest event')).toBe('EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED at 2026-11-01T11:00:00Z');
    expect(fact('Latest error')).toBe(JSON.stringify(latestError));
    const events = cells(tableOf(res.text, 'Creation events'));
    expect(events.slice(0, 2).map((e) => e.slice(0, 2))).toEqual([
      ['2026-11-01T11:00:00Z', 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED'],
      ['2026-11-01T10:00:00Z', 'EVENT_ACCOUNT_IMPORT_PROCESS_SCHEDULED'],
    ]);
  });
});
