import { applyFile } from '../../shared/admin/apply.use-case';
import { uniqueSuffix } from '../helpers/context';
import { signedIn, StaffClient, startStaffApp, type StaffTestApp } from './staff-app';

const pad = (n: number) => String(n).padStart(3, '0');
const PENDING = Array.from({ length: 101 }, (_, i) => `P-${pad(i + 1)}`);
const FORMULA = '=HYPERLINK("http://x")';

/** The external account numbers in a list page's table, in order. */
const numbersOn = (text: string) =>
  [...text.matchAll(/<td><a href="[^"]*account\?number=[^"]*">([^<]+)<\/a><\/td>/g)].map((m) => m[1]!);
const link = (text: string, label: string) => {
  const href = new RegExp(`<a href="([^"]+)">${label}</a>`).exec(text)?.[1];
  return href?.replaceAll('&amp;', '&');
};
const unescape = (s: string) => s.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&#39;', "'");

describe('support page', () => {
  let app: StaffTestApp;
  let support: StaffClient;
  let supplier: string;
  let imported: { number: string; platform: string; accountId: number };

  beforeAll(async () => {
    app = await startStaffApp();
    support = (await signedIn(app, 'support')).client;
    supplier = `SUPPORT_${uniqueSuffix()}`;
    const report = await applyFile(app.db, {
      suppliers: [{ code: supplier, status: 'Paused', document_root: `imports/${supplier}` }],
      // The ledger rows seeded below are this organisation's: a supplier's pages show only its organisations' writes.
      organisations: [{ name: `org-${supplier}`, suppliers: [supplier] }],
      accounts: [
        ...PENDING.map((n, i) => ({
          import_supplier: supplier,
          external_account_number: n,
          state: i < 2 ? ('in_progress' as const) : i < 3 ? ('failed' as const) : ('staged' as const),
        })),
        { import_supplier: supplier, external_account_number: FORMULA, state: 'staged' },
        ...['I-1', 'I-2', 'I-3'].map((n) => ({
          import_supplier: supplier,
          external_account_number: n,
          state: 'imported' as const,
        })),
      ],
    });
    const row = report.accounts.find((a) => a.external_account_number === 'I-2')!;
    const account = await app.db.prisma.account.findUniqueOrThrow({
      where: { platformAccountNumber: row.platform_account_number! },
    });
    imported = { number: 'I-2', platform: row.platform_account_number!, accountId: account.id };
    ledgerOrganisation = (await app.db.prisma.organisation.findFirstOrThrow({ where: { name: `org-${supplier}` } })).id;
    await seedImportedData(app, account.id);
  });
  afterAll(() => app.close());

  it('lists every import supplier, whichever organisation uses it', async () => {
    const res = await support.get('/support/');
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<a href="/support/suppliers/${supplier}/">${supplier}</a></td><td>Paused</td>`);
  });

  it("shows a supplier's counts: pending, in progress, failed, staged and imported", async () => {
    const res = await support.get(`/support/suppliers/${supplier}/`);
    expect(res.status).toBe(200);
    const count = (label: string) => new RegExp(`<span class="n">(\\d+)</span> ${label}`).exec(res.text)?.[1];
    expect([
      count('pending'),
      count('in progress'),
      count('staged'),
      count('failed attempts'),
      count('imported'),
    ]).toEqual(['102', '2', '99', '1', '3']);
  });

  it('pages through the pending list 50 at a time by external account number, forwards and back', async () => {
    const first = await support.get(`/support/suppliers/${supplier}/accounts/?list=pending`);
    const second = await support.get(link(first.text, 'Next page')!);
    const third = await support.get(link(second.text, 'Next page')!);
    const all = [FORMULA, ...PENDING];
    expect(numbersOn(first.text).map(unescape)).toEqual(all.slice(0, 50));
    expect(numbersOn(second.text)).toEqual(all.slice(50, 100));
    expect(numbersOn(third.text)).toEqual(all.slice(100));
    expect(link(third.text, 'Next page')).toBeUndefined();
    expect(link(first.text, 'Previous page')).toBeUndefined();
    const back = await support.get(link(third.text, 'Previous page')!);
    expect(numbersOn(back.text)).toEqual(all.slice(50, 100));
    const imported = await support.get(`/support/suppliers/${supplier}/accounts/?list=imported`);
    expect(numbersOn(imported.text)).toEqual(['I-1', 'I-2', 'I-3']);
  });

  it('finds an imported account with its platform account number and what was imported onto it', async () => {
    const res = await support.get(`/support/suppliers/${supplier}/account?number=${imported.number}`);
    expect(res.status).toBe(200);
    const fact = (name: string) => new RegExp(`<dt>${name}</dt><dd>([^<]*)</dd>`).exec(res.text)?.[1];
    expect(fact('Status')).toBe('COMPLETED');
    expect(fact('Platform account number')).toBe(imported.platform);
    const count = (label: string) => new RegExp(`<span class="n">(\\d+)</span> ${label}`).exec(res.text)?.[1];
    expect([
      count('notes'),
      count('transactions'),
      count('historical statements'),
      count('payment instructions'),
    ]).toEqual(['7', '2', '1', '1']);
    // The latest five notes, newest first; note text is escaped, never markup.
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.text).not.toContain('<script>');
    expect(res.text).toMatch(/alert\(1\)[\s\S]*note number 6[\s\S]*note number 3</);
    expect(res.text).not.toMatch(/note number [12]</);
    expect(res.text).toContain('<td>T-2</td><td>2026-01-03</td><td>CHARGE</td><td>-3.10</td>');
    expect(res.text).toContain('<td>S-1</td>');
    expect(res.text).toContain('<td>STRIPE</td><td>CARD</td><td>pm_123</td><td>yes</td>');
  });

  it("lists the account's refused writes newest first, bounded, one row per field error with its code", async () => {
    await seedRejections(app, supplier, imported.number, 55);
    // Another account's refusal and this account's successes are not rejections of this account.
    const base = {
      organisationId: ledgerOrganisation,
      requestId: 'r',
      endpoint: 'notes/create',
      items: 1,
      supplierCode: supplier,
    };
    await app.db.prisma.runLedgerEntry.createMany({
      data: [
        { ...base, externalAccountNumber: 'I-1', httpStatus: 400, outcome: 'refused', code: 'not_mine' },
        { ...base, externalAccountNumber: imported.number, httpStatus: 201, outcome: 'written', code: 'mine_but_fine' },
      ],
    });

    const res = await support.get(`/support/suppliers/${supplier}/account?number=${imported.number}`);

    expect(res.status).toBe(200);
    const table = /<caption>Refused writes[\s\S]*?<\/table>/.exec(res.text)?.[0] ?? '';
    const rows = [...table.matchAll(/<tr>((?:<td>[^<]*<\/td>)+)<\/tr>/g)].map((m) =>
      [...m[1]!.matchAll(/<td>([^<]*)<\/td>/g)].map((c) => c[1]),
    );
    expect(rows).toHaveLength(50);
    // Rejection 55 is the newest; 1–5 fall off the bound.
    expect(rows[0]).toEqual([
      '2026-02-25T09:55:00Z',
      'historical-statements/create',
      '400',
      'code_55',
      'statements.0.statement_id',
      '—',
      'run-55',
      'request-55',
    ]);
    expect(rows[1]).toEqual([
      '2026-02-25T09:54:00Z',
      'transactions/create',
      '400',
      'code_54',
      'transactions.54.amount',
      '—',
      '—',
      'request-54',
    ]);
    expect(rows.at(-1)![3]).toBe('code_6');
    expect(table).not.toContain('not_mine');
    expect(table).not.toContain('mine_but_fine');
  });

  it('finds a pending account with no platform account, and says when nothing matches', async () => {
    const pending = await support.get(`/support/suppliers/${supplier}/account?number=P-001`);
    expect(pending.status).toBe(200);
    expect(pending.text).toContain('<dt>Status</dt><dd>IN_PROGRESS</dd>');
    expect(pending.text).toContain('<dt>Platform account number</dt><dd>—</dd>');
    const missing = await support.get(`/support/suppliers/${supplier}/account?number=NOPE`);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('No account with external account number <strong>NOPE</strong>');
  });

  it('answers 404 for an unknown supplier and 400 for a malformed query', async () => {
    expect((await support.get('/support/suppliers/NO_SUCH_SUPPLIER/')).status).toBe(404);
    const bad = await support.get(`/support/suppliers/${supplier}/accounts/?list=everything`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Invalid request');
  });

  it('downloads a list as CSV, streamed, with formula-looking cells neutralised', async () => {
    const res = await support.get(`/support/suppliers/${supplier}/accounts.csv?list=all`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename=${supplier}-all-accounts.csv`);
    const lines = res.text.split('\r\n');
    expect(lines[0]).toBe('external_account_number,platform_account_number,account_created_at');
    expect(lines[1]).toBe(`"'=HYPERLINK(""http://x"")",,`);
    expect(lines.find((l) => l.startsWith('I-2,'))).toMatch(
      new RegExp(`^I-2,${imported.platform},\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`),
    );
    expect(lines).toHaveLength(1 + 105 + 1);
    expect(lines.at(-1)).toBe('');
    const pending = await support.get(`/support/suppliers/${supplier}/accounts.csv?list=pending`);
    expect(pending.text.split('\r\n')).toHaveLength(1 + 102 + 1);
  });

  it('opens to operators too, and to nobody signed out', async () => {
    const { client: operator } = await signedIn(app, 'operator');
    expect((await operator.get(`/support/suppliers/${supplier}/`)).status).toBe(200);
    const anonymous = new StaffClient(app.baseUrl);
    const csv = await anonymous.get(`/support/suppliers/${supplier}/accounts.csv`);
    expect(csv.status).toBe(303);
    expect(csv.location).toBe(`/login?next=${encodeURIComponent(`/support/suppliers/${supplier}/accounts.csv`)}`);
  });
});

/** Seven notes (one with markup), two transactions, a statement and a payment instruction. */
async function seedImportedData(app: StaffTestApp, accountId: number): Promise<void> {
  const db = app.db.prisma;
  for (let i = 0; i < 6; i++) {
    await db.note.create({
      data: { accountId, body: `note number ${i + 1}`, createdAt: new Date(`2026-01-0${i + 1}T10:00:00Z`) },
    });
  }
  await db.note.create({
    data: { accountId, body: '<script>alert(1)</script>', createdAt: new Date('2026-01-09T10:00:00Z') },
  });
  for (const [id, day, amount] of [
    ['T-1', '2026-01-02', '10.5'],
    ['T-2', '2026-01-03', '-3.1'],
  ] as const) {
    await db.transaction.create({
      data: {
        accountId,
        transactionId: id,
        transactionDate: new Date(`${day}T00:00:00Z`),
        amount,
        type: 'CHARGE',
        submitted: {},
        requestId: `r-${id}`,
      },
    });
  }
  await db.historicalStatement.create({
    data: {
      accountId,
      statementId: 'S-1',
      billPeriodFromDate: new Date('2025-12-01'),
      billPeriodToDate: new Date('2025-12-31'),
    },
  });
  await db.paymentInstruction.create({ data: { accountId, vendor: 'STRIPE', reference: 'pm_123', type: 'CARD' } });
}

/** `count` refused writes of the account, a minute apart on 25 February 2026; odd ones carry a run id. */
/** The organisation that may use the test's supplier, which the seeded ledger rows are recorded for. */
let ledgerOrganisation = 0;

async function seedRejections(app: StaffTestApp, supplier: string, number: string, count: number): Promise<void> {
  await app.db.prisma.runLedgerEntry.createMany({
    data: Array.from({ length: count }, (_, i) => ({
      organisationId: ledgerOrganisation,
      runId: i % 2 === 0 ? `run-${i + 1}` : null,
      requestId: `request-${i + 1}`,
      endpoint: i % 2 === 0 ? 'historical-statements/create' : 'transactions/create',
      supplierCode: supplier,
      externalAccountNumber: number,
      httpStatus: 400,
      outcome: 'refused',
      code: `code_${i + 1}`,
      attr: i % 2 === 0 ? 'statements.0.statement_id' : `transactions.${i + 1}.amount`,
      items: 1,
      recordedAt: new Date(Date.UTC(2026, 1, 25, 9, i + 1)),
    })),
  });
}
