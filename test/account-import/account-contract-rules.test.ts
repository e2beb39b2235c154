// The contract's validators on fields the account subset takes that were not enforced before
// (docs/account-import.md, "The contract's validators"): a tariff of the other supply on a meter point,
// ledger balances that do not add up to transfer_balance, pronouns outside the contract's values,
// validating an account that is already imported, and (one case per code, each against the valid
// fixture) payment schedules, dates, occupier accounts, customers' names, registers, readings and
// agreement coverage.
import { applyFile } from '../../shared/admin/apply.use-case';
import { createTenant, request, startTestApp, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { account, applyCatalogue, ELEC_TARIFF, GAS_TARIFF, type Json } from './account.fixture';

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

// Payment schedules, dates and occupier accounts: each case breaks the valid fixture in one place and
// expects exactly that code at exactly that path; the "fine" variants are the nearest valid accounts.
describe("the contract's payment schedule, date and occupier rules", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
    await applyCatalogue(app);
  });
  afterAll(() => app.close());

  const validate = async (body: Json) => {
    const tenant = await createTenant(app);
    return request(app.baseUrl, 'POST', '/v1/data-import/validate-account/', {
      token: tenant.token,
      body: { ...body, import_supplier: tenant.supplier },
    });
  };
  const daysFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  const schedule = (start_date: string, end_date: string | null, amount = '60.00') => ({
    amount,
    day_of_month: 2,
    frequency: 'MONTHLY',
    means: 'DD',
    start_date,
    end_date,
  });
  const elec = (b: Json) => b.supply_addresses[0].meter_points[0];

  const faults: [string, string, (b: Json) => void][] = [
    ['zero_payment_schedule_amount', 'payment_schedules.0.amount', (b) => (b.payment_schedules[0].amount = '0.00')],
    [
      'multiple_open_ended_payment_schedules',
      'payment_schedules.1.end_date',
      (b) => (b.payment_schedules = [schedule('2018-01-01', null), schedule('2019-01-01', null)]),
    ],
    [
      'payment_schedule_date_overlaps',
      'payment_schedules.1.start_date',
      (b) => (b.payment_schedules = [schedule('2018-01-01', '2018-12-31'), schedule('2018-06-01', null)]),
    ],
    [
      'payment_schedule_date_overlaps',
      'payment_schedules.0.start_date',
      (b) => (b.payment_schedules = [schedule('2019-01-01', '2019-06-30'), schedule('2018-01-01', null)]),
    ],
    [
      'payment_schedule_date_gaps',
      'payment_schedules.1.start_date',
      (b) => (b.payment_schedules = [schedule('2018-01-01', '2018-12-31'), schedule('2019-02-01', null)]),
    ],
    [
      'start_date_same_as_end_date',
      'payment_schedules.0.end_date',
      (b) => (b.payment_schedules = [schedule('2018-01-01', '2018-01-01')]),
    ],
    [
      'start_date_same_as_end_date',
      'supply_addresses.0.meter_points.0.agreements.0.effective_to',
      (b) =>
        (elec(b).agreements = [
          { tariff_code: ELEC_TARIFF, effective_from: '2019-01-01', effective_to: '2019-01-01' },
          { tariff_code: ELEC_TARIFF, effective_from: '2019-01-01' },
        ]),
    ],
    [
      'start_date_same_as_end_date',
      'supply_addresses.0.meter_points.0.supply_end_date',
      (b) => {
        elec(b).supply_end_date = elec(b).supply_start_date;
        elec(b).agreements = [{ tariff_code: ELEC_TARIFF, effective_from: '2019-01-01', effective_to: '2019-01-02' }];
      },
    ],
    [
      'future_supply_start_date',
      'supply_addresses.0.meter_points.0.supply_start_date',
      (b) => {
        elec(b).supply_start_date = daysFromNow(3);
        delete elec(b).agreements;
      },
    ],
    [
      'date_in_future',
      'supply_addresses.0.meter_points.0.meters.0.reading_history.1.reading_date',
      (b) =>
        elec(b).meters[0].reading_history.push({
          register_id: '1',
          reading_date: daysFromNow(3),
          reading_value: '990.00',
          reading_type: 'CUSTOMER',
          billed: false,
        }),
    ],
    [
      'occupier_account_with_multiple_supply_addresses',
      'supply_addresses.1',
      (b) => {
        b.unknown_occupier = true;
        delete b.customers;
        delete b.billing_email;
        b.supply_addresses.push({
          supply_address1: '1 Other Street',
          supply_postcode: 'W1F 9DE',
          customer_at_supply_address_from_date: '2019-01-01',
          meter_points: [],
        });
      },
    ],
    [
      'contact_details_for_occupier',
      'billing_email',
      (b) => {
        b.unknown_occupier = true;
        delete b.customers;
      },
    ],
    [
      'customer_may_not_be_named_the_occupier',
      'customers.1.family_name',
      (b) => Object.assign(b.customers[1], { given_name: 'The', family_name: ' occupier ' }),
    ],
    ['customer_given_name_required', 'customers.1.given_name', (b) => (b.customers[1].given_name = ' ')],
    ['customer_family_name_required', 'customers.0.family_name', (b) => delete b.customers[0].family_name],
    [
      'current_statement_transaction_before_last_billed_to_date',
      'current_statement_transactions.0.transaction_date',
      (b) => {
        delete b.last_statement_closing_date;
        delete b.historical_statement_transactions;
        b.current_statement_transactions[0].transaction_date = '2019-07-31';
      },
    ],
  ];

  it.each(faults)('refuses %s at %s', async (code, attr, breakIt) => {
    const body = account('X', `EXT-${uniqueSuffix()}`);
    breakIt(body);
    const res = await validate(body);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ attr, code })]);
  });

  const fine: [string, (b: Json) => void][] = [
    ['the fixture as it is', () => undefined],
    [
      "a business account's contact known by family name only",
      (b) => {
        b.account_type = 'BUSINESS';
        delete b.customers[1].given_name;
      },
    ],
    [
      'current statement transactions from last_billed_to_date on, without a closing date',
      (b) => {
        delete b.last_statement_closing_date;
        delete b.historical_statement_transactions;
        b.current_statement_transactions[0].transaction_date = '2019-08-01';
      },
    ],
    [
      'schedules that follow on the next day or on the end day, the last open-ended',
      (b) =>
        (b.payment_schedules = [
          schedule('2018-01-01', '2018-06-30'),
          schedule('2018-07-01', '2018-12-31'),
          schedule('2018-12-31', null),
        ]),
    ],
    [
      "an open-ended debt repayment plan beside an open-ended regular schedule (the contract's example)",
      (b) =>
        (b.payment_schedules = [
          { ...schedule('2018-01-01', null, '6.00'), is_debt_repayment_plan: true, debt_repayment_element: '2.00' },
          schedule('2018-01-01', null),
        ]),
    ],
    [
      'a supply starting tomorrow (UTC)',
      (b) => {
        elec(b).supply_start_date = daysFromNow(1);
        delete elec(b).agreements;
      },
    ],
    [
      'an unknown-occupier account with one supply address and no contact details',
      (b) => {
        b.unknown_occupier = true;
        delete b.customers;
        delete b.billing_email;
      },
    ],
  ];

  it.each(fine)('accepts %s', async (_name, change) => {
    const body = account('X', `EXT-${uniqueSuffix()}`);
    change(body);
    const res = await validate(body);
    expect(res.body.errors).toBeUndefined();
    expect(res.status).toBe(200);
  });
});

// Registers, readings and agreement coverage: the same way, one fault, one code at one path.
describe("the contract's register, reading and agreement coverage rules", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
    await applyCatalogue(app);
  });
  afterAll(() => app.close());

  const validate = async (body: Json) => {
    const tenant = await createTenant(app);
    return request(app.baseUrl, 'POST', '/v1/data-import/validate-account/', {
      token: tenant.token,
      body: { ...body, import_supplier: tenant.supplier },
    });
  };
  const elecMeter = (b: Json) => b.supply_addresses[0].meter_points[0].meters[0];
  const gas = (b: Json) => b.supply_addresses[0].meter_points[1];
  const em = 'supply_addresses.0.meter_points.0.meters.0';

  const faults: [string, string, (b: Json) => void][] = [
    [
      'no_register_id_for_reading',
      `${em}.transfer_readings.0.register_id`,
      (b) => delete elecMeter(b).transfer_readings[0].register_id,
    ],
    [
      'reading_register_id_not_recognised',
      `${em}.transfer_readings.0.register_id`,
      (b) => (elecMeter(b).transfer_readings[0].register_id = 'Z'),
    ],
    [
      'multiple_transfer_readings_for_register',
      `${em}.transfer_readings.1.register_id`,
      (b) => elecMeter(b).transfer_readings.push({ ...elecMeter(b).transfer_readings[0], reading_value: '1001.00' }),
    ],
    [
      'reading_without_register_id',
      `${em}.reading_history.0.register_id`,
      (b) => delete elecMeter(b).reading_history[0].register_id,
    ],
    [
      'historical_reading_register_id_not_recognised',
      `${em}.reading_history.0.register_id`,
      (b) => (elecMeter(b).reading_history[0].register_id = 'Z'),
    ],
    [
      'missing_transfer_reading_for_register',
      `${em}.registers.1.register_id`,
      (b) => elecMeter(b).registers.push({ register_id: '2', tpr: '00002' }),
    ],
    [
      'active_gas_meter_without_transfer_reading',
      'supply_addresses.0.meter_points.1.meters.0.transfer_readings',
      (b) => (gas(b).meters[0].transfer_readings = []),
    ],
    [
      'agreement_start_date_before_supply_start_date',
      'supply_addresses.0.meter_points.1.agreements.0.effective_from',
      (b) => (gas(b).agreements[0].effective_from = '2019-04-01'),
    ],
    [
      'meterpoint_with_agreement_not_on_supply',
      'supply_addresses.0.meter_points.1.agreements.0.effective_from',
      (b) => (gas(b).supply_end_date = '2019-07-01'),
    ],
    [
      'no_agreement_covering_last_billed_to_date',
      'supply_addresses.0.meter_points.1.agreements',
      (b) =>
        (gas(b).agreements = [{ tariff_code: GAS_TARIFF, effective_from: '2019-04-10', effective_to: '2019-07-01' }]),
    ],
  ];

  it.each(faults)('refuses %s at %s', async (code, attr, breakIt) => {
    const body = account('X', `EXT-${uniqueSuffix()}`);
    breakIt(body);
    const res = await validate(body);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ attr, code })]);
  });

  const fine: [string, (b: Json) => void][] = [
    [
      'a non-settlement register without a transfer reading',
      (b) => elecMeter(b).registers.push({ register_id: 'X', tpr: '00043', is_settlement: false }),
    ],
    [
      'a removed gas meter without a transfer reading',
      (b) => {
        Object.assign(gas(b).meters[0], {
          removed_on: '2019-07-01',
          transfer_readings: [],
          reading_history: [
            { reading_date: '2019-07-01', reading_value: '490.00', reading_type: 'ROUTINE', billed: true },
          ],
        });
      },
    ],
    [
      'meter points without agreements',
      (b) => {
        delete b.supply_addresses[0].meter_points[0].agreements;
        delete gas(b).agreements;
      },
    ],
    [
      'an agreement starting on supply_end_date',
      (b) => {
        gas(b).supply_end_date = '2019-08-01';
      },
    ],
  ];

  it.each(fine)('accepts %s', async (_name, change) => {
    const body = account('X', `EXT-${uniqueSuffix()}`);
    change(body);
    const res = await validate(body);
    expect(res.body.errors).toBeUndefined();
    expect(res.status).toBe(200);
  });
});
