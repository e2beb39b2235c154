import { startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { createTenantWithAccounts, importAccount, postStatements, storedStatements } from './statements.fixture';
import { uniqueSuffix } from '../helpers/context';

// Each supplier needs a document root of its own.
const ROOT = `roots/acme-${uniqueSuffix()}`;

describe('POST /v1/data-import/historical-statements/create/ — importing statements', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await startTestApp({ DOCUMENT_BUCKET: 'statements-bucket' });
    tenant = await createTenantWithAccounts(app, { documentRoot: ROOT });
  });
  afterAll(() => app.close());

  const envelope = (number: string, statements: unknown[]) => ({
    import_supplier: tenant.supplier,
    external_account_number: number,
    statements,
  });

  it("accepts the contract's example payload, echoes the validated data and stores it", async () => {
    const account = await importAccount(app, tenant);
    const payload = envelope(account.number, [
      {
        bill_period_from_date: '2022-01-01',
        bill_period_to_date: '2022-01-31',
        statement_id: '1',
        issued_date: '2022-02-02',
        number: '1',
        gross_amount: 100,
        statement_path: 'path/to/statement-1.pdf',
      },
    ]);
    const res = await postStatements(app, tenant.token, payload);
    expect(res.status).toBe(201);
    expect(res.body).toEqual(payload);
    const [row] = await storedStatements(app, account.id);
    expect(row).toMatchObject({
      statementId: '1',
      billPeriodFromDate: new Date('2022-01-01T00:00:00Z'),
      billPeriodToDate: new Date('2022-01-31T00:00:00Z'),
      issuedDate: new Date('2022-02-02T00:00:00Z'),
      number: '1',
      grossAmount: 100n,
      statementPath: 'path/to/statement-1.pdf',
      storageLocation: `statements-bucket/${ROOT}/path/to/statement-1.pdf`,
    });
  });

  it('needs only the period and statement_id, and echoes exactly what was sent', async () => {
    const account = await importAccount(app, tenant);
    const statement = { bill_period_from_date: '2023-03-01', bill_period_to_date: '2023-03-01', statement_id: 'S-1' };
    const res = await postStatements(app, tenant.token, envelope(account.number, [statement]));
    expect(res.status).toBe(201);
    expect(res.body.statements).toEqual([statement]);
    expect(await storedStatements(app, account.id)).toEqual([
      expect.objectContaining({
        issuedDate: null,
        number: null,
        grossAmount: null,
        statementPath: null,
        storageLocation: null,
      }),
    ]);
  });

  it('accepts null issued_date and gross_amount and echoes them as null', async () => {
    const account = await importAccount(app, tenant);
    const statement = {
      bill_period_from_date: '2023-01-01',
      bill_period_to_date: '2023-01-31',
      statement_id: 'S-null',
      issued_date: null,
      gross_amount: null,
    };
    const res = await postStatements(app, tenant.token, envelope(account.number, [statement]));
    expect(res.status).toBe(201);
    expect(res.body.statements).toEqual([statement]);
  });

  it('stores gross_amount in minor units beyond 32 bits and negative amounts', async () => {
    const account = await importAccount(app, tenant);
    const period = { bill_period_from_date: '2023-01-01', bill_period_to_date: '2023-01-31' };
    const res = await postStatements(
      app,
      tenant.token,
      envelope(account.number, [
        { ...period, statement_id: 'big', gross_amount: 9_007_199_254_740_991 },
        { ...period, statement_id: 'credit', gross_amount: -2_500 },
      ]),
    );
    expect(res.status).toBe(201);
    expect((await storedStatements(app, account.id)).map((s) => s.grossAmount)).toEqual([
      9_007_199_254_740_991n,
      -2_500n,
    ]);
  });

  it('drops unknown and Origin-only fields from the echo', async () => {
    const account = await importAccount(app, tenant);
    const statement = { bill_period_from_date: '2023-01-01', bill_period_to_date: '2023-01-31', statement_id: 'S-x' };
    const res = await postStatements(app, tenant.token, {
      ...envelope(account.number, [
        { ...statement, average_daily_usage: '1.5', is_reversed: false, net_emissions: [] },
      ]),
      account_number: 'IGNORED',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(envelope(account.number, [statement]));
  });

  it('answers an empty list with 201 and stores nothing', async () => {
    const account = await importAccount(app, tenant);
    const res = await postStatements(app, tenant.token, envelope(account.number, []));
    expect(res.status).toBe(201);
    expect(res.body).toEqual(envelope(account.number, []));
    expect(await storedStatements(app, account.id)).toEqual([]);
  });

  it('refuses a statement_id the account already has and stores none of the request', async () => {
    const account = await importAccount(app, tenant);
    const period = { bill_period_from_date: '2023-01-01', bill_period_to_date: '2023-01-31' };
    expect(
      (await postStatements(app, tenant.token, envelope(account.number, [{ ...period, statement_id: 'A' }]))).status,
    ).toBe(201);

    const res = await postStatements(
      app,
      tenant.token,
      envelope(account.number, [
        { ...period, statement_id: 'B' },
        { ...period, statement_id: 'A' },
      ]),
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: expect.any(String),
      code: 'historical_statement_already_exists',
      errors: [
        { attr: 'statements.1.statement_id', code: 'historical_statement_already_exists', detail: expect.any(String) },
      ],
    });
    expect((await storedStatements(app, account.id)).map((s) => s.statementId)).toEqual(['A']);
  });

  it('allows the same statement_id on different accounts', async () => {
    const one = await importAccount(app, tenant);
    const two = await importAccount(app, tenant);
    const statement = { bill_period_from_date: '2023-01-01', bill_period_to_date: '2023-01-31', statement_id: 'same' };
    expect((await postStatements(app, tenant.token, envelope(one.number, [statement]))).status).toBe(201);
    expect((await postStatements(app, tenant.token, envelope(two.number, [statement]))).status).toBe(201);
  });

  it('stores a statement once when identical requests arrive concurrently; the others get 400, not 500', async () => {
    const account = await importAccount(app, tenant);
    const statements = Array.from({ length: 50 }, (_, i) => ({
      bill_period_from_date: '2023-01-01',
      bill_period_to_date: '2023-01-31',
      statement_id: `race-${i}`,
    }));
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => postStatements(app, tenant.token, envelope(account.number, statements))),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400, 400, 400]);
    for (const r of responses.filter((x) => x.status === 400))
      expect(r.body.code).toBe('historical_statement_already_exists');
    expect(await storedStatements(app, account.id)).toHaveLength(50);
  });

  it('accepts exactly MAX_ITEMS_PER_REQUEST statements in one request', async () => {
    const account = await importAccount(app, tenant);
    const statements = Array.from({ length: app.config.MAX_ITEMS_PER_REQUEST }, (_, i) => ({
      bill_period_from_date: '2023-01-01',
      bill_period_to_date: '2023-01-31',
      statement_id: `s-${i}`,
    }));
    const res = await postStatements(app, tenant.token, envelope(account.number, statements));
    expect(res.status).toBe(201);
    expect(await storedStatements(app, account.id)).toHaveLength(statements.length);
  });
});
