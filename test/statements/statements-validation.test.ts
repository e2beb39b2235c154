import type { Tenant, TestApp } from '../helpers/app';
import { startTenantApp } from '../helpers/tenant-app';
import { createTenantWithAccounts, importAccount, postStatements, storedStatements } from './statements.fixture';

describe('POST /v1/data-import/historical-statements/create/ — refused payloads and accounts', () => {
  let app: TestApp;
  let tenant: Tenant;
  let account: { number: string; id: number };

  beforeAll(async () => {
    ({ app, tenant } = await startTenantApp({}, {}, createTenantWithAccounts));
    account = await importAccount(app, tenant);
  });
  afterAll(() => app.close());

  const valid = { bill_period_from_date: '2023-01-01', bill_period_to_date: '2023-01-31', statement_id: 'OK' };
  const post = (statements: unknown[], number = account.number, token = tenant.token, supplier = tenant.supplier) =>
    postStatements(app, token, { import_supplier: supplier, external_account_number: number, statements });

  async function expectRefused(res: Awaited<ReturnType<typeof post>>, errors: { attr: string; code: string }[]) {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: expect.any(String),
      code: expect.any(String),
      errors: errors.map((e) => ({ ...e, detail: expect.any(String) })),
    });
    expect(await storedStatements(app, account.id)).toEqual([]);
  }

  it('requires the account reference and statements', async () => {
    await expectRefused(await postStatements(app, tenant.token, { import_supplier: '' }), [
      { attr: 'import_supplier', code: 'blank' },
      { attr: 'external_account_number', code: 'required' },
      { attr: 'statements', code: 'required' },
    ]);
  });

  it('requires bill_period_from_date, bill_period_to_date and statement_id', async () => {
    await expectRefused(await post([{ ...valid }, { number: '7' }]), [
      { attr: 'statements.1.bill_period_from_date', code: 'required' },
      { attr: 'statements.1.bill_period_to_date', code: 'required' },
      { attr: 'statements.1.statement_id', code: 'required' },
    ]);
  });

  it('refuses a period that ends before it starts (a one-day period is fine)', async () => {
    await expectRefused(
      await post([{ ...valid, bill_period_from_date: '2023-02-01', bill_period_to_date: '2023-01-31' }]),
      [{ attr: 'statements.0.bill_period_to_date', code: 'start_date_later_than_end_date' }],
    );
  });

  it('refuses impossible and malformed dates with 400, never 500', async () => {
    await expectRefused(
      await post([
        { ...valid, bill_period_from_date: '2022-02-30' },
        { ...valid, statement_id: 'b', bill_period_to_date: '2023-1-31' },
        { ...valid, statement_id: 'c', issued_date: '2023-02-02T00:00:00Z' },
        { ...valid, statement_id: 'd', bill_period_from_date: null },
      ]),
      [
        { attr: 'statements.0.bill_period_from_date', code: 'invalid' },
        { attr: 'statements.1.bill_period_to_date', code: 'invalid' },
        { attr: 'statements.2.issued_date', code: 'invalid' },
        { attr: 'statements.3.bill_period_from_date', code: 'null' },
      ],
    );
  });

  it('refuses a gross_amount that is not an integer in minor units', async () => {
    await expectRefused(
      await post([
        { ...valid, gross_amount: 100.5 },
        { ...valid, statement_id: 'b', gross_amount: '100' },
        { ...valid, statement_id: 'c', gross_amount: 1e20 },
      ]),
      [
        { attr: 'statements.0.gross_amount', code: 'invalid' },
        { attr: 'statements.1.gross_amount', code: 'invalid' },
        { attr: 'statements.2.gross_amount', code: 'max_value' },
      ],
    );
  });

  it('refuses blank or null strings where the contract does not allow them', async () => {
    await expectRefused(
      await post([
        { ...valid, statement_id: '' },
        { ...valid, statement_id: 'b', number: null },
        { ...valid, statement_id: 'c', statement_path: null },
      ]),
      [
        { attr: 'statements.0.statement_id', code: 'blank' },
        { attr: 'statements.1.number', code: 'null' },
        { attr: 'statements.2.statement_path', code: 'null' },
      ],
    );
  });

  it('refuses a statement_id of spaces only or with a space at either end instead of storing it', async () => {
    await expectRefused(
      await post([
        { ...valid, statement_id: '   ' },
        { ...valid, statement_id: ' pad-x' },
      ]),
      [
        { attr: 'statements.0.statement_id', code: 'blank' },
        { attr: 'statements.1.statement_id', code: 'invalid' },
      ],
    );
  });

  it('reports a malformed bill_period_from_date once, without a range error at the valid bill_period_to_date', async () => {
    await expectRefused(await post([{ ...valid, bill_period_from_date: '2023-13-01' }]), [
      { attr: 'statements.0.bill_period_from_date', code: 'invalid' },
    ]);
  });

  it.each([
    ['a parent segment', '../x.pdf'],
    ['a leading slash', '/abs.pdf'],
    ['a backslash', 'a\\b.pdf'],
    ['a control character', 'a\u0007b.pdf'],
    ['an empty segment', 'a//b.pdf'],
    ['nothing', ''],
    ['more than 1024 characters', `${'a'.repeat(1021)}.pdf`],
  ])('refuses a statement path with %s', async (_what, path) => {
    await expectRefused(await post([{ ...valid, statement_path: path }]), [
      { attr: 'statements.0.statement_path', code: 'invalid_document_path' },
    ]);
  });

  it('refuses a statement_id repeated inside the request', async () => {
    await expectRefused(await post([valid, { ...valid, statement_id: 'other' }, valid]), [
      { attr: 'statements.2.statement_id', code: 'duplicate_statement_ids' },
    ]);
  });

  it('refuses more than MAX_ITEMS_PER_REQUEST statements with max_length on statements', async () => {
    const many = Array.from({ length: app.config.MAX_ITEMS_PER_REQUEST + 1 }, (_, i) => ({
      ...valid,
      statement_id: `${i}`,
    }));
    await expectRefused(await post(many), [{ attr: 'statements', code: 'max_length' }]);
  });

  it('validates the body before looking for the account (400, not 404)', async () => {
    const res = await post([{ ...valid, gross_amount: 1.5 }], 'NO-SUCH-ACCOUNT');
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ attr: 'statements.0.gross_amount', code: 'invalid' })]);
  });

  it.each(['STAGED', 'IN-PROGRESS', 'FAILED', 'NO-SUCH-ACCOUNT'])(
    'answers 404 account_not_found for the account %s',
    async (number) => {
      const res = await post([valid], number);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'account_not_found' });
    },
  );

  it("answers 404 for another organisation's imported account", async () => {
    const other = await createTenantWithAccounts(app);
    const res = await post([valid], account.number, other.token);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('account_not_found');
    expect(await storedStatements(app, account.id)).toEqual([]);
  });

  it.each(['Paused', 'Complete'] as const)(
    'answers 400 import_supplier_migration_not_ongoing when the supplier is %s',
    async (status) => {
      const stopped = await createTenantWithAccounts(app, { status });
      const res = await post([valid], 'IMPORTED', stopped.token, stopped.supplier);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        detail: expect.stringContaining(status),
        code: 'import_supplier_migration_not_ongoing',
        errors: [
          { attr: 'import_supplier', code: 'import_supplier_migration_not_ongoing', detail: expect.any(String) },
        ],
      });
      const stored = await app.db.prisma.historicalStatement.count({
        where: { account: { process: { supplierCode: stopped.supplier } } },
      });
      expect(stored).toBe(0);
    },
  );
});
