// GET /v1/data-import/reconciliation/<supplier>/: the stored figures per imported account, as NDJSON
// and as CSV, scoped to the caller's organisation.
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';

let app: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  app = await startTestApp({}, { workers: true });
  tenant = await createTenant(app, {
    accounts: [
      { external_account_number: 'R-2', state: 'imported', open_statement_from: '2019-10-01' },
      { external_account_number: 'R-1', state: 'imported', open_statement_from: '2019-10-01' },
      { external_account_number: 'R-3', state: 'staged' },
    ],
  });
  const account = { import_supplier: tenant.supplier, external_account_number: 'R-1' };
  const post = (path: string, body: unknown) =>
    request(app.baseUrl, 'POST', `/v1/data-import/${path}`, { token: tenant.token, body });
  expect((await post('notes/create/', { ...account, notes: [{ body: 'one' }, { body: 'two' }] })).status).toBe(201);
  const tx = (id: string, type: string, amount: string) => ({
    transaction_id: id,
    transaction_date: '2024-01-02',
    amount,
    type,
  });
  const created = await post('transactions/create/', {
    ...account,
    transactions: [
      tx('A', 'CHARGE', '10.10'),
      tx('B', 'CHARGE', '0.0500000001'),
      tx('C', 'PAYMENT', '3.333'),
      tx('D', 'CREDIT', '-2.5'),
    ],
  });
  expect(created.status).toBe(201);
  const statement = (id: string, gross: number | null) => ({
    statement_id: id,
    bill_period_from_date: '2024-01-01',
    bill_period_to_date: '2024-01-31',
    gross_amount: gross,
  });
  expect(
    (
      await post('historical-statements/create/', {
        ...account,
        statements: [statement('S1', 100), statement('S2', 250), statement('S3', null)],
      })
    ).status,
  ).toBe(201);
  // Dated before R-2's open period and forced in: moved, with the service's pinned note about it.
  const moved = await request(
    app.baseUrl,
    'POST',
    '/v1/data-import/transactions/create/?force_add_to_current_statement=true',
    {
      token: tenant.token,
      body: {
        import_supplier: tenant.supplier,
        external_account_number: 'R-2',
        transactions: [{ ...tx('OLD', 'CHARGE', '1.00'), transaction_date: '2019-01-15' }],
      },
    },
  );
  expect(moved.status).toBe(201);
  await app.db.pool.query(
    `INSERT INTO payment_instructions (account_id, vendor, reference, type)
     SELECT a.id, 'STRIPE', 'pm_test', 'CARD' FROM accounts a JOIN account_import_processes p ON p.id = a.process_id
      WHERE p.supplier_code = $1 AND p.external_account_number = 'R-1'`,
    [tenant.supplier],
  );
});
afterAll(() => app.close());

const path = () => `/v1/data-import/reconciliation/${tenant.supplier}/`;

it('streams one NDJSON row per imported account, in account order, with exact sums as strings', async () => {
  const res = await fetch(app.baseUrl + path(), { headers: { authorization: `Token ${tenant.token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  const rows = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(rows.map((r) => r.external_account_number)).toEqual(['R-1', 'R-2']);
  expect(rows[0]).toMatchObject({
    notes_count: 2,
    transactions_count: 4,
    transactions_charge_count: 2,
    transactions_charge_amount: '10.1500000001',
    transactions_payment_count: 1,
    transactions_payment_amount: '3.333',
    transactions_credit_amount: '-2.50',
    transactions_supply_charge_count: 0,
    transactions_supply_charge_amount: '0.00',
    statements_count: 3,
    statements_gross_amount: '350',
    payment_instruction_active: true,
  });
  expect(rows[0].platform_account_number).toMatch(/^A-/);
  expect(rows[0].service_notes_count).toBe(0);
  // The moved-transactions note is the service's own: apart from notes_count, which counts what was sent.
  expect(rows[1]).toMatchObject({
    notes_count: 0,
    service_notes_count: 1,
    transactions_count: 1,
    transactions_charge_amount: '1.00',
    statements_gross_amount: '0',
    payment_instruction_active: false,
  });
});

it('answers CSV with a header row for Accept: text/csv, negative amounts left as numbers', async () => {
  const res = await fetch(app.baseUrl + path(), {
    headers: { authorization: `Token ${tenant.token}`, accept: 'text/csv' },
  });
  expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
  const [header, first, second, end] = (await res.text()).split('\r\n');
  const columns = header!.split(',');
  expect(columns.slice(0, 3)).toEqual(['external_account_number', 'platform_account_number', 'notes_count']);
  const r1 = Object.fromEntries(columns.map((c, i) => [c, first!.split(',')[i]]));
  expect(r1).toMatchObject({
    external_account_number: 'R-1',
    transactions_credit_amount: '-2.50',
    payment_instruction_active: 'true',
  });
  expect(second!.startsWith('R-2,')).toBe(true);
  expect(end).toBe('');
});

it("answers 404 for another organisation's supplier and 401 without a token", async () => {
  const other = await createTenant(app);
  const foreign = await request(app.baseUrl, 'GET', path(), { token: other.token });
  expect(foreign.status).toBe(404);
  expect(foreign.body.code).toBe('import_supplier_not_found');
  expect((await request(app.baseUrl, 'GET', path())).status).toBe(401);
  const empty = await fetch(`${app.baseUrl}/v1/data-import/reconciliation/${other.supplier}/`, {
    headers: { authorization: `Token ${other.token}`, accept: 'text/csv' },
  });
  expect((await empty.text()).split('\r\n').filter(Boolean)).toHaveLength(1);
});
