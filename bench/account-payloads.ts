// The `accounts` phase's request bodies: a realistic account as a migration schedules it through
// POST /v2/data-import/accounts/ (2 customers; 1 supply address with an electricity and a gas meter
// point; 3 meters, 6 readings, 2 agreements; 20 ledger transactions, 2 notes, 2 statements). Every
// account has its own external number, meter point identifiers (with valid check digits), e-mail
// addresses and transaction and statement ids, so nothing is refused as taken or repeated.

export const ACCOUNT_ELEC_TARIFF = 'BENCH-ACCOUNT-ELEC';
export const ACCOUNT_GAS_TARIFF = 'BENCH-ACCOUNT-GAS';
export const ACCOUNT_TEAM = 'Bench account team';

const MPAN_WEIGHTS = [3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43];

/** The MPAN core of the index-th account: distributor 19, the index in 10 digits, the check digit. */
export function benchMpan(index: number): string {
  const body = `19${String(index).padStart(10, '0')}`;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body[i]) * MPAN_WEIGHTS[i]!;
  return `${body}${(sum % 11) % 10}`;
}

/** The MPRN of the index-th account: 8 digits (7 then the index), then the two-digit check number. */
export function benchMprn(index: number): string {
  const body = `7${String(index).padStart(7, '0')}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[i]) * (body.length - i);
  return `${body}${String(sum % 11).padStart(2, '0')}`;
}

export const accountExternal = (runTag: string, index: number) => `ACC-${runTag}-${index}`;

const pad2 = (n: number) => String(n).padStart(2, '0');

/** 10 historical transactions (Jan–Jul 2019, before the closing date) and 10 current ones (from Aug 2019). */
function ledger(id: string) {
  const kinds = [
    { type: 'CHARGE', reason: 'IMPORTED_CHARGE' },
    { type: 'PAYMENT', reason: 'ACCOUNT_CHARGE_PAYMENT' },
    { type: 'CREDIT', reason: 'DIRECT_DEBIT_DISCOUNT' },
  ];
  const item = (prefix: string, k: number, date: string) => ({
    transaction_id: `${id}-${prefix}${k}`,
    transaction_date: date,
    amount: `${10 + k}.${pad2(k * 7)}`,
    ...kinds[k % kinds.length]!,
  });
  return {
    historical_statement_transactions: Array.from({ length: 10 }, (_, k) =>
      item('H', k, `2019-${pad2(1 + (k % 7))}-${pad2(1 + k)}`),
    ),
    current_statement_transactions: Array.from({ length: 10 }, (_, k) => item('C', k, `2019-08-${pad2(2 + k)}`)),
  };
}

function meter(serial: string, registerId: string | undefined, base: number) {
  const reg = registerId === undefined ? {} : { register_id: registerId };
  return {
    meter_serial_number: serial,
    installed_on: '2010-01-01',
    ...(registerId === undefined
      ? {}
      : { registers: [{ register_id: registerId, tpr: '00001', number_of_digits: 5 }] }),
    transfer_readings: [
      { ...reg, reading_date: '2019-08-01', reading_value: `${base + 100}.00`, reading_type: 'CUSTOMER' },
    ],
    reading_history: [
      { ...reg, reading_date: '2019-06-20', reading_value: `${base}.00`, reading_type: 'CUSTOMER', billed: true },
    ],
  };
}

/** One supply address with an electricity point (2 meters) and a gas point (1 meter), each with an agreement. */
function supplyAddress(index: number) {
  return {
    supply_address1: `${1 + (index % 400)} Bench Street`,
    supply_postcode: 'W1F 9DE',
    is_landlord: false,
    customer_at_supply_address_from_date: '2018-01-01',
    meter_points: [
      {
        supply_type: 'ELECTRICITY',
        identifier: benchMpan(index),
        mpid: 'TENT',
        supply_start_date: '2018-01-01',
        profile_class: 1,
        ssc: '0393',
        agreements: [{ tariff_code: ACCOUNT_ELEC_TARIFF, effective_from: '2018-01-01' }],
        meters: [meter(`E${index}A`, '1', 1000), meter(`E${index}B`, '1', 2000)],
      },
      {
        supply_type: 'GAS',
        identifier: benchMprn(index),
        mpid: 'TEN',
        shipper_mpid: 'TCL',
        supply_start_date: '2018-01-01',
        agreements: [{ tariff_code: ACCOUNT_GAS_TARIFF, effective_from: '2018-01-01' }],
        meters: [meter(`G${index}`, undefined, 500)],
      },
    ],
  };
}

/** The account of the index-th schedule of a run, as the object the schedule's `payload` carries. */
export function benchAccount(supplier: string, runTag: string, index: number): Record<string, unknown> {
  const external = accountExternal(runTag, index);
  return {
    import_supplier: supplier,
    external_account_number: external,
    account_type: 'DOMESTIC',
    billing_name: `Account Holder ${index}`,
    billing_address1: `${1 + (index % 400)} Bench Street`,
    billing_postcode: 'W1F 9DE',
    billing_email: `holder.${runTag}.${index}@example.com`,
    communication_preference: 'ONLINE',
    operations_team_name: ACCOUNT_TEAM,
    customers: [
      { title: 'Ms', given_name: 'Ada', family_name: `Holder${index}`, email: `ada.${runTag}.${index}@example.com` },
      {
        given_name: 'Ben',
        family_name: `Holder${index}`,
        email: `ben.${runTag}.${index}@example.com`,
        mobile: '07123456789',
      },
    ],
    supply_addresses: [supplyAddress(index)],
    transfer_balance: '30.00',
    last_statement_balance: '20.00',
    last_statement_closing_date: '2019-07-31',
    last_statement_issue_date: '2019-08-01',
    last_billed_to_date: '2019-08-01',
    ...ledger(external),
    notes: [
      { body: `Account ${external} moved from the old system`, created_at: '2019-07-10T10:20:00Z' },
      { body: 'Customer asked about the first bill after the move.', created_at: '2019-08-03T09:00:00Z' },
    ],
    statements: [
      { statement_id: `${external}-S1`, bill_period_from_date: '2019-06-01', bill_period_to_date: '2019-06-30' },
      { statement_id: `${external}-S2`, bill_period_from_date: '2019-07-01', bill_period_to_date: '2019-07-31' },
    ],
  };
}

/** The body of POST /v2/data-import/accounts/: the account, created at once (the window starts now). */
export function scheduleBody(supplier: string, runTag: string, index: number): string {
  return JSON.stringify({ payload: benchAccount(supplier, runTag, index), task_params: { is_dry_run: false } });
}
