// The contract's validators on fields the account subset takes that were not enforced before
// (docs/account-import.md, "The contract's validators"): a tariff of the other supply on a meter point,
// ledger balances that do not add up to transfer_balance, pronouns outside the contract's values, and
// validating an account that is already imported.
import { applyFile } from '../../shared/admin/apply.use-case';
import { createTenant, request, startTestApp, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { account, applyCatalogue } from './account.fixture';

describe("the contract's validators on the account's fields", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
    await applyCatalogue(app);
  });
  afterAll(() => app.close());

  const validate = async (body: unknown) => {
    const tenant = await createTenant(app);
    const withSupplier = { ...(body as object), import_supplier: tenant.supplier };
    return request(app.baseUrl, 'POST', '/v1/data-import/validate-account/', {
      token: tenant.token,
      body: withSupplier,
    });
  };

  it('refuses a gas meter point on an electricity product (products carry supply_type)', async () => {
    const elec = `ELEC-ONLY-${uniqueSuffix()}`;
    await applyFile(app.db, { products: [{ code: elec, supply_type: 'ELECTRICITY', rates: [] }] });
    const body = account('X', `EXT-${uniqueSuffix()}`);
    body.supply_addresses[0].meter_points[1].agreements[0].tariff_code = elec;
    expect(body.supply_addresses[0].meter_points[1].supply_type).toBe('GAS');

    const res = await validate(body);

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        attr: 'supply_addresses.0.meter_points.1.agreements.0.tariff_code',
        code: 'tariff_type_does_not_match_meter_point_type',
      }),
    ]);
    // On its own supply it is fine.
    body.supply_addresses[0].meter_points[0].agreements[0].tariff_code = elec;
    body.supply_addresses[0].meter_points[1].agreements[0].tariff_code = account(
      'X',
      'Y',
    ).supply_addresses[0].meter_points[1].agreements[0].tariff_code;
    expect((await validate(body)).status).toBe(200);
  });

  it('refuses ledger balances that do not add up to transfer_balance', async () => {
    const base = account('X', `EXT-${uniqueSuffix()}`);
    const ledger = {
      last_statement_balance: base.last_statement_balance,
      last_statement_closing_date: base.last_statement_closing_date,
      last_statement_issue_date: base.last_statement_issue_date,
      historical_statement_transactions: base.historical_statement_transactions,
      current_statement_transactions: base.current_statement_transactions,
    };
    for (const k of Object.keys(ledger)) delete base[k];
    const body = { ...base, transfer_balance: '30.00', ledgers: [{ ...ledger, ledger_balance: '25.00' }] };

    const res = await validate(body);

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ attr: 'transfer_balance', code: 'ledger_balances_not_equal_to_transfer_balance' }),
    ]);
    expect((await validate({ ...body, ledgers: [{ ...ledger, ledger_balance: '30.00' }] })).status).toBe(200);
  });

  it("takes pronouns from the contract's values only", async () => {
    const body = account('X', `EXT-${uniqueSuffix()}`);
    body.customers[0].pronouns = 'he/him';
    const res = await validate(body);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ attr: 'customers.0.pronouns' });
    body.customers[0].pronouns = 'HE_HIM_HIS';
    expect((await validate(body)).status).toBe(200);
  });

  it('validating an account that is already imported is 400 account_import_process_already_imported (v1 and v2)', async () => {
    const tenant = await createTenant(app);
    const number = `EXT-${uniqueSuffix()}`;
    await applyFile(app.db, {
      accounts: [{ import_supplier: tenant.supplier, external_account_number: number, state: 'imported' }],
    });
    const body = account(tenant.supplier, number);

    const v1 = await request(app.baseUrl, 'POST', '/v1/data-import/validate-account/', { token: tenant.token, body });
    const v2 = await request(app.baseUrl, 'POST', '/v2/data-import/accounts/validate/', {
      token: tenant.token,
      body: { payload: body },
    });

    for (const res of [v1, v2]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'account_import_process_already_imported',
        platform_account_number: expect.stringMatching(/^A-/),
      });
    }
  });
});
