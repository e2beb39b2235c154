import { Queue } from 'bullmq';
import { countJobs, openTransactionsQueue, startTenantApp } from '../helpers/tenant-app';
import { createTenant, request, type Tenant, type TestApp } from '../helpers/app';
import { applyFile } from '../../shared/admin/apply.use-case';
import {
  envelope,
  futureDay,
  importedAccount,
  organisationOf,
  payment,
  postTransactions,
  storedResults,
  storedTransactions,
  supplyCharge,
  type TestAccount,
} from './transactions.fixture';

const MAX_ITEMS = 5;

describe('POST /v1/data-import/transactions/create/ rejections that never reach the queue', () => {
  let app: TestApp;
  let tenant: Tenant;
  let account: TestAccount;
  let queue: Queue;

  beforeAll(async () => {
    ({ app, tenant } = await startTenantApp({ MAX_ITEMS_PER_REQUEST: String(MAX_ITEMS) }, { workers: true }));
    account = await importedAccount(app, tenant);
    queue = openTransactionsQueue(app);
  });
  afterAll(async () => {
    await queue.close();
    await app.close();
  });

  const jobCount = () => countJobs(queue);

  /** Posts, then proves the request left no stored result, no job and no transaction behind. */
  async function rejected(body: unknown, opts: Parameters<typeof postTransactions>[3] = {}) {
    const before = { results: (await storedResults(app, organisationOf(tenant))).length, jobs: await jobCount() };
    const res = await postTransactions(app, tenant.token, body, opts);
    expect((await storedResults(app, organisationOf(tenant))).length).toBe(before.results);
    expect(await jobCount()).toBe(before.jobs);
    expect(await storedTransactions(app, account.accountId)).toEqual([]);
    return res;
  }

  const lineItem = (overrides: Record<string, unknown>) => ({ ...supplyCharge('s').line_items[0], ...overrides });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['a missing type', { type: undefined }, 'type', 'required'],
    ['an unknown type', { type: 'REFUND' }, 'type', 'invalid_choice'],
    ['a missing transaction_id', { transaction_id: undefined }, 'transaction_id', 'required'],
    ['a blank transaction_id', { transaction_id: '' }, 'transaction_id', 'blank'],
    ['a missing transaction_date', { transaction_date: undefined }, 'transaction_date', 'required'],
    ['an impossible transaction_date', { transaction_date: '2019-02-30' }, 'transaction_date', 'invalid'],
    [
      'a transaction_date in the future',
      { transaction_date: futureDay() },
      'transaction_date',
      'transaction_in_future',
    ],
    ['a missing amount', { amount: undefined }, 'amount', 'required'],
    ['a null amount', { amount: null }, 'amount', 'null'],
    ['an amount that is not a number', { amount: '12,50' }, 'amount', 'invalid'],
    ['an amount with 11 whole digits', { amount: '12345678901' }, 'amount', 'max_whole_digits'],
    ['an amount with 11 decimal places', { amount: '0.12345678901' }, 'amount', 'max_decimal_places'],
    ['an amount with 21 digits', { amount: '12345678901.1234567891' }, 'amount', 'max_digits'],
    ['a zero payment', { amount: 0 }, 'amount', 'amount_must_be_positive'],
    [
      'a negative repayment',
      { type: 'REPAYMENT', payment_type: 'BACS', amount: '-5' },
      'amount',
      'amount_must_be_positive',
    ],
    ['a repayment payment_type on a payment', { payment_type: 'BACS' }, 'payment_type', 'invalid_choice'],
    [
      'a payment payment_type on a repayment',
      { type: 'REPAYMENT', payment_type: 'DEBIT_CARD' },
      'payment_type',
      'invalid_choice',
    ],
    ['a blank note', { note: '' }, 'note', 'blank'],
    ['a reason that is not a string', { reason: 7 }, 'reason', 'invalid'],
  ])('rejects %s with TRANSACTION_IMPORT_ERROR and the attr of the field', async (_name, overrides, field, code) => {
    const submitted = payment('bad', overrides);
    const res = await rejected(envelope(tenant, account, [payment('good'), submitted]));

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 'TRANSACTION_IMPORT_ERROR',
      error_detail: expect.any(String) as unknown,
      // Normalised (issue 17 item 7): a valid amount as a decimal string, an invalid one as sent.
      transaction_data: {
        ...JSON.parse(JSON.stringify(submitted)),
        ...('amount' in overrides ? {} : { amount: '71.00' }),
      },
      errors: expect.arrayContaining([
        { attr: `transactions.1.${field}`, code, detail: expect.any(String) as unknown },
      ]) as unknown,
    });
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['a missing product_code', { product_code: undefined }, 'product_code', 'required'],
    ['missing line_items', { line_items: undefined }, 'line_items', 'required'],
    ['empty line_items', { line_items: [], amount: 9.24 }, 'line_items', 'min_length'],
    [
      'a net amount other than price × units',
      { line_items: [lineItem({ net_amount: 45 })], amount: 54.24 },
      'line_items.0.net_amount',
      'incorrect_line_item_net_amount',
    ],
    [
      'an amount other than net plus tax',
      { amount: 53.25 },
      'amount',
      'ledger_transaction_amount_does_not_match_with_line_item_net_amount_and_tax_amount',
    ],
    [
      'three meter readings',
      { line_items: [lineItem({ units: [1, 2, 3] })] },
      'line_items.0.units',
      'line_item_units_must_be_two_values',
    ],
    [
      'an end date before the start date',
      { line_items: [lineItem({ start_date: '2019-11-02' })] },
      'line_items.0.end_date',
      'start_date_later_than_end_date',
    ],
    [
      'two rate selectors on one line item',
      { line_items: [lineItem({ rate_specification_code: 'SPEC' })], supply_point_identifier: 'SP' },
      'line_items.0',
      'conflicting_rate_band_specification',
    ],
    [
      'a rate_specification_code without supply_point_identifier',
      { line_items: [lineItem({ rate_band: undefined, rate_specification_code: 'SPEC' })] },
      'supply_point_identifier',
      'supply_point_identifier_required_for_rate_specification_code',
    ],
    [
      'a price with 8 decimal places',
      { line_items: [lineItem({ price_per_unit: '11.00000001' })] },
      'line_items.0.price_per_unit',
      'max_decimal_places',
    ],
    [
      'units with 5 decimal places',
      { line_items: [lineItem({ number_of_units: '4.00001' })] },
      'line_items.0.number_of_units',
      'max_decimal_places',
    ],
    [
      'an unknown tax unit_type',
      { tax_items: [{ amount: 9.24, tax_type: 'VAT', value_taxed: 44, rate: 0.21, unit_type: 'PERCENT' }] },
      'tax_items.0.unit_type',
      'invalid_choice',
    ],
  ])('rejects a supply charge with %s', async (_name, overrides, field, code) => {
    const res = await rejected(envelope(tenant, account, [supplyCharge('s', overrides)]));

    expect(res.status).toBe(400);
    expect(res.body.status).toBe('TRANSACTION_IMPORT_ERROR');
    expect(res.body.errors).toContainEqual({
      attr: `transactions.0.${field}`,
      code,
      detail: expect.any(String) as unknown,
    });
  });

  it('accepts a net amount that is price × units rounded to the places given', async () => {
    // 11.1111111 × 3 = 33.3333333; the client rounded to cents. Answered by the worker (201). No
    // rate_band, so the catalogue's price (11.0) is not asked.
    const other = await importedAccount(app, tenant);
    const res = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, other, [
        supplyCharge('rounded', {
          amount: '33.33',
          tax_items: undefined,
          line_items: [
            lineItem({ rate_band: undefined, price_per_unit: '11.1111111', number_of_units: 3, net_amount: '33.33' }),
          ],
        }),
      ]),
    );
    expect(res.status).toBe(201);
  });

  it('reports a repeated transaction_id at its second occurrence as duplicate_transaction_ids', async () => {
    const res = await rejected(envelope(tenant, account, [payment('1'), payment('2'), payment('1')]));

    expect(res.status).toBe(400);
    expect(res.body.transaction_data).toEqual(payment('1', { amount: '71.00' }));
    expect(res.body.errors).toEqual([
      {
        attr: 'transactions.2.transaction_id',
        code: 'duplicate_transaction_ids',
        detail: expect.any(String) as unknown,
      },
    ]);
  });

  it('names the first failing transaction on top and lists every failing transaction in errors, writing nothing', async () => {
    const res = await rejected(
      envelope(tenant, account, [
        payment('ok'),
        payment('first', { amount: 'x', payment_type: 'NOPE' }),
        payment('fine'),
        payment('third', { amount: -1 }),
      ]),
    );

    expect(res.status).toBe(400);
    expect(res.body.error_detail).toContain('"first"');
    expect(res.body.transaction_data).toEqual(payment('first', { amount: 'x', payment_type: 'NOPE' }));
    expect(res.body.errors.map((e: { attr: string; code: string }) => [e.attr, e.code])).toEqual([
      ['transactions.1.amount', 'invalid'],
      ['transactions.1.payment_type', 'invalid_choice'],
      ['transactions.3.amount', 'amount_must_be_positive'],
    ]);
  });

  it.each<[string, unknown, string, string]>([
    ['no transactions', { transactions: undefined }, 'transactions', 'required'],
    ['an empty transactions list', { transactions: [] }, 'transactions', 'min_length'],
    ['transactions that is not a list', { transactions: {} }, 'transactions', 'invalid'],
    ['an import_supplier that is not a string', { import_supplier: 42 }, 'import_supplier', 'invalid'],
    ['no external_account_number', { external_account_number: undefined }, 'external_account_number', 'required'],
    ['a dry_run that is not a boolean', { dry_run: 'yes' }, 'dry_run', 'invalid'],
    [
      'more transactions than the limit',
      { transactions: Array.from({ length: MAX_ITEMS + 1 }, (_, i) => payment(`${i}`)) },
      'transactions',
      'max_length',
    ],
  ])('answers a request with %s with the standardized validation body', async (_name, overrides, attr, code) => {
    const res = await rejected({ ...envelope(tenant, account, [payment('1')]), ...(overrides as object) });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: expect.any(String) as unknown,
      code: 'invalid_input',
      errors: [{ attr, code, detail: expect.any(String) as unknown }],
    });
  });

  it('answers a body that is not an object with the standardized validation body', async () => {
    const res = await rejected([payment('1')]);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ attr: 'non_field_errors', code: 'invalid' });
  });

  it.each([
    ['check_previously_added=yes', 'check_previously_added'],
    ['force_add_to_current_statement=', 'force_add_to_current_statement'],
    ['force_add_to_current_statement=1&force_add_to_current_statement=0', 'force_add_to_current_statement'],
  ])('rejects the query %s naming the parameter', async (query, attr) => {
    const res = await rejected(envelope(tenant, account, [payment('1')]), { query });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: expect.any(String) as unknown,
      code: 'invalid_input',
      errors: [{ attr, code: 'invalid', detail: expect.any(String) as unknown }],
    });
  });

  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a control character', 'key\twith-tab'],
    ['with a non-ASCII character', 'clé'],
  ])('rejects an Idempotency-Key %s', async (_name, key) => {
    const res = await rejected(envelope(tenant, account, [payment('1')]), { idempotencyKey: key });

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { attr: 'Idempotency-Key', code: 'invalid_idempotency_key', detail: expect.any(String) as unknown },
    ]);
  });

  it('answers 404 account_not_found for an unknown or only staged account', async () => {
    await applyFile(app.db, {
      accounts: [{ import_supplier: tenant.supplier, external_account_number: 'STAGED-1', state: 'staged' }],
    });
    for (const external of ['NO-SUCH-ACCOUNT', 'STAGED-1']) {
      const res = await rejected({ ...envelope(tenant, account, [payment('1')]), external_account_number: external });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: expect.any(String) as unknown, code: 'account_not_found' });
    }
  });

  it('answers 400 import_supplier_migration_not_ongoing for a paused supplier', async () => {
    const paused = await createTenant(app, {
      status: 'Paused',
      accounts: [{ external_account_number: 'P-1', state: 'imported' }],
    });
    const res = await postTransactions(app, paused.token, {
      import_supplier: paused.supplier,
      external_account_number: 'P-1',
      transactions: [payment('1')],
    });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'import_supplier_migration_not_ongoing' });
    expect(await storedResults(app, organisationOf(paused))).toEqual([]);
  });

  it('requires authentication', async () => {
    const res = await request(app.baseUrl, 'POST', '/v1/data-import/transactions/create/', {
      body: envelope(tenant, account, [payment('1')]),
    });
    expect(res.status).toBe(401);
  });
});
