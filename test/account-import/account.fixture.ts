// A realistic account as a migration sends it (two customers, one supply address with an electricity
// and a gas meter point, meters, readings, agreements, transactions, notes, statements), its products
// and operations team, and helpers for the endpoints.
import { applyFile } from '../../shared/admin/apply.use-case';
import { request, type Tenant, type TestApp } from '../helpers/app';

/** Published MPAN cores and MPRNs with valid check digits (the contract's examples, a library's README). */
export const MPAN = '1200060176720';
export const MPAN_2 = '1312345678907';
export const MPRN = '9353824109';

export const ELEC_TARIFF = 'ACCOUNT-IMPORT-ELEC-1';
export const GAS_TARIFF = 'ACCOUNT-IMPORT-GAS-1';
export const TEAM = 'Account import team';

/** The products and team the account names (global, so every suite may apply them again). */
export async function applyCatalogue(app: TestApp): Promise<void> {
  await applyFile(app.db, {
    products: [
      { code: ELEC_TARIFF, rates: [] },
      { code: GAS_TARIFF, rates: [] },
    ],
    operations_teams: [{ name: TEAM }],
  });
}

/** A deep copy, so a test may change any part of the account. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export function account(supplier: string, external: string): Json {
  return structuredClone({
    import_supplier: supplier,
    external_account_number: external,
    account_type: 'DOMESTIC',
    billing_name: 'Robert Jablonski',
    billing_address1: '123 Fake Street',
    billing_address2: '',
    billing_postcode: 'W1F 9DE',
    billing_email: 'bob@example.com',
    communication_preference: 'ONLINE',
    operations_team_name: TEAM,
    metadata: [{ key: 'origin', value: { system: 'old' } }],
    customers: [
      { given_name: 'Bob', family_name: 'Jablonski', email: 'bob@example.com', mobile: '07123456789', title: 'Mr' },
      { given_name: 'Alice', family_name: 'Jablonski', email: 'alice@example.com', landline: '020 7234 3456' },
    ],
    supply_addresses: [
      {
        supply_address1: '123 Fake Street',
        supply_postcode: 'W1F 9DE',
        is_landlord: false,
        customer_at_supply_address_from_date: '2019-01-01',
        meter_points: [
          {
            supply_type: 'ELECTRICITY',
            identifier: MPAN,
            mpid: 'TENT',
            supply_start_date: '2019-01-01',
            profile_class: 1,
            ssc: '0393',
            agreements: [
              { tariff_code: ELEC_TARIFF, effective_from: '2019-01-01', effective_to: '2019-08-01' },
              { tariff_code: ELEC_TARIFF, effective_from: '2019-08-01' },
            ],
            meters: [
              {
                meter_serial_number: 'Z16N389556',
                installed_on: '2001-01-01',
                registers: [{ register_id: '1', tpr: '00001', number_of_digits: 5 }],
                transfer_readings: [
                  { register_id: '1', reading_date: '2019-08-01', reading_value: '1000.00', reading_type: 'CUSTOMER' },
                ],
                reading_history: [
                  {
                    register_id: '1',
                    reading_date: '2019-06-20',
                    reading_value: '980.00',
                    reading_type: 'CUSTOMER',
                    billed: true,
                  },
                ],
              },
            ],
          },
          {
            supply_type: 'GAS',
            identifier: MPRN,
            mpid: 'TEN',
            shipper_mpid: 'TCL',
            supply_start_date: '2019-04-10',
            agreements: [{ tariff_code: GAS_TARIFF, effective_from: '2019-08-01' }],
            meters: [
              {
                meter_serial_number: '54BV',
                installed_on: '2002-01-01',
                transfer_readings: [{ reading_date: '2019-08-01', reading_value: '500.00', reading_type: 'CUSTOMER' }],
              },
            ],
          },
        ],
      },
    ],
    transfer_balance: '30.00',
    last_statement_balance: '20.00',
    last_statement_closing_date: '2019-07-31',
    last_statement_issue_date: '2019-08-01',
    last_billed_to_date: '2019-08-01',
    historical_statement_transactions: [
      {
        transaction_id: 'H1',
        transaction_date: '2018-08-05',
        amount: '10.00',
        type: 'PAYMENT',
        reason: 'ACCOUNT_CHARGE_PAYMENT',
      },
      {
        transaction_id: 'H2',
        transaction_date: '2018-07-05',
        amount: '10.00',
        type: 'CREDIT',
        reason: 'DIRECT_DEBIT_DISCOUNT',
      },
    ],
    current_statement_transactions: [
      {
        transaction_id: 'C1',
        transaction_date: '2019-08-04',
        amount: '10.00',
        type: 'PAYMENT',
        reason: 'ACCOUNT_CHARGE_PAYMENT',
      },
    ],
    notes: [{ body: 'Moved from the old system', created_at: '2018-10-10T10:20:00Z' }, { body: 'Second note' }],
    statements: [
      { statement_id: 'S1', bill_period_from_date: '2019-06-01', bill_period_to_date: '2019-06-30' },
      { statement_id: 'S2', bill_period_from_date: '2019-07-01', bill_period_to_date: '2019-07-31' },
    ],
    payment_schedules: [
      { amount: '60.00', day_of_month: 2, frequency: 'MONTHLY', means: 'DD', start_date: '2018-01-01' },
    ],
  });
}

export const validateAccount = (app: TestApp, t: Tenant, body: unknown) =>
  request(app.baseUrl, 'POST', '/v1/data-import/validate-account/', { token: t.token, body });

export const stageAccount = (app: TestApp, t: Tenant, body: unknown) =>
  request(app.baseUrl, 'POST', '/v1/data-import/account-import-process/create-or-update/', { token: t.token, body });

export const validateV2 = (app: TestApp, t: Tenant, body: unknown) =>
  request(app.baseUrl, 'POST', '/v2/data-import/accounts/validate/', { token: t.token, body });

export const importStatus = (app: TestApp, t: Tenant, supplier: string, external: string) =>
  request(
    app.baseUrl,
    'GET',
    `/v2/data-import/accounts/${encodeURIComponent(supplier)}/${encodeURIComponent(external)}/`,
    { token: t.token },
  );
