// The contract's catalogue checks on SUPPLY_CHARGE (product exists, rate band and price match the
// product's rate for the period, no overlap with an already charged period), answered by the worker.
import { applyFile } from '../../shared/admin/apply.use-case';
import { startTenantApp } from '../helpers/tenant-app';
import type { Tenant, TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import {
  envelope,
  importedAccount,
  postTransactions,
  storedTransactions,
  supplyCharge,
  type TestAccount,
} from './transactions.fixture';

describe('SUPPLY_CHARGE transactions against the product catalogue', () => {
  let app: TestApp;
  let tenant: Tenant;
  const product = `PRODUCT-${uniqueSuffix()}`;

  beforeAll(async () => {
    ({ app, tenant } = await startTenantApp({}, { workers: true }));
    await applyFile(app.db, {
      products: [
        {
          code: product,
          rates: [
            { rate_band: 'CONSUMPTION_STANDARD', price_per_unit: 11, valid_from: '2019-01-01', valid_to: '2019-12-01' },
            { rate_band: 'CONSUMPTION_STANDARD', price_per_unit: '12.5', valid_from: '2019-12-01' },
            { rate_band: 'STANDING_CHARGE', price_per_unit: '0.25', valid_from: '2019-01-01' },
          ],
        },
      ],
    });
  });
  afterAll(() => app.close());

  /** A charge of `units` at `price` for one line item, with the amount that makes the sums agree. */
  function charge(id: string, item: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
    const units = Number(item.number_of_units ?? 4);
    const price = Number(item.price_per_unit ?? 11);
    const net = (units * price).toFixed(2);
    return supplyCharge(id, {
      product_code: product,
      amount: net,
      tax_items: undefined,
      line_items: [
        {
          ...supplyCharge(id).line_items[0],
          units: undefined,
          number_of_units: units,
          price_per_unit: price,
          net_amount: net,
          ...item,
        },
      ],
      ...overrides,
    });
  }
  const october = { start_date: '2019-10-01', end_date: '2019-11-01' };
  const november = { start_date: '2019-11-01', end_date: '2019-12-01' };

  async function post(account: TestAccount, transactions: unknown[]) {
    return postTransactions(app, tenant.token, envelope(tenant, account, transactions));
  }

  it('adds a charge whose product, rate band and price match the catalogue for its period', async () => {
    const account = await importedAccount(app, tenant);
    const res = await post(account, [
      charge('oct', october),
      charge('dec', { start_date: '2019-12-01', end_date: '2019-12-31', price_per_unit: 12.5 }),
    ]);
    expect(res.status).toBe(201);
    expect((await storedTransactions(app, account.accountId)).map((t) => t.transactionId)).toEqual(['oct', 'dec']);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, string, string]>([
    ['an unknown product', october, { product_code: 'NO-SUCH-PRODUCT' }, 'product_code', 'product_code_does_not_exist'],
    [
      'a rate band the product lacks',
      { ...october, rate_band: 'NIGHT' },
      {},
      'line_items.0.rate_band',
      'line_item_rate_not_found',
    ],
    [
      'a period no single rate covers',
      { start_date: '2019-11-15', end_date: '2019-12-15' },
      {},
      'line_items.0.rate_band',
      'line_item_rate_not_found',
    ],
    [
      'a period before the first rate',
      { start_date: '2018-10-01', end_date: '2018-11-01' },
      {},
      'line_items.0.rate_band',
      'line_item_rate_not_found',
    ],
    [
      'a price per unit other than the rate',
      { ...october, price_per_unit: 11.5 },
      {},
      'line_items.0.price_per_unit',
      'price_per_unit_does_not_match_rate',
    ],
  ])('refuses %s and stores nothing', async (_what, item, overrides, attr, code) => {
    const account = await importedAccount(app, tenant);
    const res = await post(account, [charge('bad', item, overrides)]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: 'TRANSACTION_IMPORT_ERROR',
      errors: [{ attr: `transactions.0.${attr}`, code }],
    });
    expect(res.body.errors).toHaveLength(1);
    expect(await storedTransactions(app, account.accountId)).toEqual([]);
  });

  it('refuses a period overlapping an already charged one on the same supply point, and allows the next period and other supply points', async () => {
    const account = await importedAccount(app, tenant);
    expect((await post(account, [charge('oct', october)])).status).toBe(201);

    const overlapping = await post(account, [charge('mid-oct', { start_date: '2019-10-15', end_date: '2019-10-20' })]);
    expect(overlapping.status).toBe(400);
    expect(overlapping.body.errors).toEqual([
      {
        attr: 'transactions.0.line_items.0',
        code: 'line_items_overlap_already_charged_period',
        detail: expect.stringContaining('2019-10-01') as unknown,
      },
    ]);

    // The end day is a boundary: November may start on it.
    expect((await post(account, [charge('nov', november)])).status).toBe(201);
    expect((await post(account, [charge('oct-meter-2', october, { supply_point_identifier: 'MPAN-2' })])).status).toBe(
      201,
    );
    expect((await storedTransactions(app, account.accountId)).map((t) => t.transactionId)).toEqual([
      'oct',
      'nov',
      'oct-meter-2',
    ]);
  });

  it('counts an earlier charge of the same request as charged, while a resent one that already exists is skipped', async () => {
    const account = await importedAccount(app, tenant);
    expect((await post(account, [charge('oct', october)])).status).toBe(201);

    const res = await post(account, [
      charge('oct', october),
      charge('nov', november),
      charge('nov-again', { start_date: '2019-11-10', end_date: '2019-11-11' }),
    ]);

    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { attr: string; code: string }) => [e.attr, e.code])).toEqual([
      ['transactions.2.line_items.0', 'line_items_overlap_already_charged_period'],
    ]);
  });

  it('refuses a charge sent again with check_previously_added=false: its period is already charged', async () => {
    const account = await importedAccount(app, tenant);
    const body = envelope(tenant, account, [charge('oct', october)]);
    expect((await postTransactions(app, tenant.token, body)).status).toBe(201);

    const again = await postTransactions(app, tenant.token, body, { query: 'check_previously_added=false' });

    expect(again.status).toBe(400);
    expect(again.body.errors).toMatchObject([
      { attr: 'transactions.0.line_items.0', code: 'line_items_overlap_already_charged_period' },
    ]);
    expect(await storedTransactions(app, account.accountId)).toHaveLength(1);
  });

  it('lists every failing charge of a request in errors, the first on top', async () => {
    const account = await importedAccount(app, tenant);
    const res = await post(account, [
      charge('fine', october),
      charge('no-product', november, { product_code: 'NO-SUCH-PRODUCT' }),
      charge('wrong-price', { start_date: '2019-12-01', end_date: '2019-12-31', price_per_unit: 11 }),
    ]);
    expect(res.status).toBe(400);
    expect(res.body.transaction_data).toMatchObject({ transaction_id: 'no-product' });
    expect(res.body.errors.map((e: { attr: string; code: string }) => [e.attr, e.code])).toEqual([
      ['transactions.1.product_code', 'product_code_does_not_exist'],
      ['transactions.2.line_items.0.price_per_unit', 'price_per_unit_does_not_match_rate'],
    ]);
    expect(await storedTransactions(app, account.accountId)).toEqual([]);
  });
});
