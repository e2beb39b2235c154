// The account's field rules and cross-checks, without the database: every code the schema answers.
import { LIMITS } from '../../shared/account-import/account-import.schemas';
import { EnergyAccountSchema } from '../../shared/account-import/energy-account';
import { isValidMpanCore, isValidMprn } from '../../shared/account-import/identifiers';
import { issueToFieldError } from '../../shared/platform/validation';
import { account, MPAN, MPAN_2, MPRN, type Json } from './account.fixture';

/** The {attr, code} of every error the account gets. */
function errorsOf(body: unknown): { attr: string; code: string }[] {
  const result = EnergyAccountSchema.safeParse(body, { reportInput: true });
  if (result.success) return [];
  return result.error.issues.map(issueToFieldError).map(({ attr, code }) => ({ attr, code }));
}

const valid = () => account('SUPPLIER', 'EXT-1');
const elec = (a: ReturnType<typeof valid>) => a.supply_addresses[0].meter_points[0];
const gas = (a: ReturnType<typeof valid>) => a.supply_addresses[0].meter_points[1];

describe('the account schema', () => {
  it('accepts the realistic account', () => {
    expect(errorsOf(valid())).toEqual([]);
  });

  it('strips names the contract does not know, as every endpoint does', () => {
    const a = { ...valid(), favourite_colour: 'blue' };
    const parsed = EnergyAccountSchema.parse(a);
    expect(parsed).not.toHaveProperty('favourite_colour');
  });

  it.each([
    ['account', (a: Json) => (a.warm_home_discount = []), 'warm_home_discount'],
    ['account', (a: Json) => (a.references = [{ namespace: 'x', value: 'y' }]), 'references'],
    ['customer', (a: Json) => (a.customers[0].user_details = []), 'customers.0.user_details'],
    [
      'supply address',
      (a: Json) => (a.supply_addresses[0].property_administrators = []),
      'supply_addresses.0.property_administrators',
    ],
    ['meter point', (a: Json) => (elec(a).eac_history = []), 'supply_addresses.0.meter_points.0.eac_history'],
    ['gas meter point', (a: Json) => (gas(a).aq_history = []), 'supply_addresses.0.meter_points.1.aq_history'],
    [
      'meter',
      (a: Json) => (gas(a).meters[0].prepay_details = {}),
      'supply_addresses.0.meter_points.1.meters.0.prepay_details',
    ],
    [
      'agreement',
      (a: Json) => (elec(a).agreements[0].rate_overrides = null),
      'supply_addresses.0.meter_points.0.agreements.0.rate_overrides',
    ],
  ])('refuses a contract field it does not support on the %s (field_not_supported)', (_what, change, attr) => {
    const a = valid();
    change(a);
    expect(errorsOf(a)).toEqual([{ attr, code: 'field_not_supported' }]);
  });

  it('bounds every string before its pattern: an over-long postcode is max_length, not invalid_postcode', () => {
    const a = valid();
    a.supply_addresses[0].supply_postcode = 'W1F 9DE'.repeat(100_000);
    a.customers[0].mobile = '0'.repeat(1_000_000);
    expect(errorsOf(a)).toEqual([
      { attr: 'customers.0.mobile', code: 'max_length' },
      { attr: 'supply_addresses.0.supply_postcode', code: 'max_length' },
    ]);
  });

  it('bounds every list', () => {
    const a = valid();
    a.customers = Array.from({ length: LIMITS.customers + 1 }, (_, i) => ({ family_name: `F${i}` }));
    elec(a).meters[0].reading_history = Array.from({ length: LIMITS.readingsPerMeter + 1 }, () => ({
      reading_date: '2019-01-01',
      reading_value: '1',
      reading_type: 'ROUTINE',
      billed: true,
    }));
    expect(errorsOf(a)).toEqual([
      { attr: 'customers', code: 'max_length' },
      { attr: 'supply_addresses.0.meter_points.0.meters.0.reading_history', code: 'max_length' },
    ]);
  });

  it.each([
    ['billing_postcode', (a: Json) => (a.billing_postcode = 'NOT A CODE'), 'billing_postcode', 'invalid_postcode'],
    [
      'supply_postcode',
      (a: Json) => (a.supply_addresses[0].supply_postcode = '12345'),
      'supply_addresses.0.supply_postcode',
      'invalid_postcode',
    ],
    ['billing_email', (a: Json) => (a.billing_email = 'bob@localhost'), 'billing_email', 'billing_email_not_valid'],
    [
      'billing_email with two @',
      (a: Json) => (a.billing_email = 'a@b@example.com'),
      'billing_email',
      'billing_email_not_valid',
    ],
    ['mobile', (a: Json) => (a.customers[0].mobile = 'abcde'), 'customers.0.mobile', 'invalid_phone_number'],
    ['landline', (a: Json) => (a.customers[1].landline = '0207'), 'customers.1.landline', 'invalid_phone_number'],
  ])('refuses an invalid %s', (_what, change, attr, code) => {
    const a = valid();
    change(a);
    expect(errorsOf(a)).toEqual([{ attr, code }]);
  });

  it('takes postcodes and phone numbers in their usual spellings', () => {
    const a = valid();
    a.billing_postcode = 'ec1a1bb';
    a.supply_addresses[0].supply_postcode = 'GIR 0AA';
    a.customers[0].mobile = '+44 7123 456789';
    a.customers[1].landline = '(020) 7234-3456';
    expect(errorsOf(a)).toEqual([]);
  });

  it('refuses a customer email repeated across customers (repeated_values_for_unique_customer_detail_namespace)', () => {
    const a = valid();
    a.customers[1].email = 'BOB@example.com';
    expect(errorsOf(a)).toEqual([
      { attr: 'customers.1.email', code: 'repeated_values_for_unique_customer_detail_namespace' },
    ]);
  });

  it('needs a customer unless the occupier is unknown, and none when it is', () => {
    const none = valid();
    none.customers = [];
    expect(errorsOf(none)).toEqual([{ attr: 'customers', code: 'required' }]);
    const unknown = valid();
    unknown.unknown_occupier = true;
    delete unknown.billing_email; // an unknown occupier has no contact details (contact_details_for_occupier)
    expect(errorsOf(unknown)).toEqual([{ attr: 'customers', code: 'customer_with_unknown_occupier' }]);
    delete unknown.customers;
    expect(errorsOf(unknown)).toEqual([]);
  });

  it('checks the MPAN core check digit and the MPRN check digits (invalid_supply_point_identifier)', () => {
    const a = valid();
    elec(a).identifier = '1200060176721';
    gas(a).identifier = '9353824108';
    expect(errorsOf(a)).toEqual([
      { attr: 'supply_addresses.0.meter_points.0.identifier', code: 'invalid_supply_point_identifier' },
      { attr: 'supply_addresses.0.meter_points.1.identifier', code: 'invalid_supply_point_identifier' },
    ]);
    const swapped = valid();
    elec(swapped).identifier = MPRN;
    // A valid MPRN is no MPAN core (and now names the gas meter point twice).
    expect(errorsOf(swapped)).toEqual([
      { attr: 'supply_addresses.0.meter_points.0.identifier', code: 'invalid_supply_point_identifier' },
      { attr: 'supply_addresses.0.meter_points.1.identifier', code: 'duplicate_meter_points_provided' },
    ]);
    const other = valid();
    elec(other).identifier = MPAN_2;
    expect(errorsOf(other)).toEqual([]);
  });

  it('refuses a register id twice on one meter (meter_with_duplicate_register_ids)', () => {
    const a = valid();
    elec(a).meters[0].registers.push({ register_id: '1', number_of_digits: 5 });
    expect(errorsOf(a)).toEqual([
      {
        attr: 'supply_addresses.0.meter_points.0.meters.0.registers.1.register_id',
        code: 'meter_with_duplicate_register_ids',
      },
    ]);
  });

  it('refuses a meter point at two supply addresses, or twice at one', () => {
    const a = valid();
    a.supply_addresses.push({
      ...structuredClone(a.supply_addresses[0]),
      supply_address1: '125 Fake Street',
      meter_points: [structuredClone(elec(a))],
    });
    expect(errorsOf(a)).toEqual([
      {
        attr: 'supply_addresses.1.meter_points.0.identifier',
        code: 'duplicate_meter_points_on_different_supply_addresses_provided',
      },
    ]);
    const twice = valid();
    twice.supply_addresses[0].meter_points.push(structuredClone(elec(twice)));
    expect(errorsOf(twice)).toEqual([
      { attr: 'supply_addresses.0.meter_points.2.identifier', code: 'duplicate_meter_points_provided' },
    ]);
  });

  it('refuses the same supply address twice, whatever its spacing and case (duplicate_supply_addresses_found)', () => {
    const a = valid();
    a.supply_addresses.push({
      supply_address1: ' 123  fake street',
      supply_postcode: 'w1f 9de',
      customer_at_supply_address_from_date: '2019-01-01',
      meter_points: [],
    });
    expect(errorsOf(a)).toEqual([{ attr: 'supply_addresses.1', code: 'duplicate_supply_addresses_found' }]);
  });

  it('checks readings against last_billed_to_date and removed meters', () => {
    const a = valid();
    gas(a).meters[0].transfer_readings[0].reading_date = '2019-07-31';
    elec(a).meters[0].reading_history[0].reading_date = '2019-08-02';
    expect(errorsOf(a)).toEqual([
      {
        attr: 'supply_addresses.0.meter_points.0.meters.0.reading_history.0.reading_date',
        code: 'billed_reading_after_last_billed_to_date',
      },
      {
        attr: 'supply_addresses.0.meter_points.1.meters.0.transfer_readings.0.reading_date',
        code: 'transfer_reading_dates_must_match_last_billed_to_date',
      },
    ]);
    const unbilled = valid();
    elec(unbilled).meters[0].reading_history[0] = {
      ...elec(unbilled).meters[0].reading_history[0],
      reading_date: '2019-09-01',
      billed: false,
    };
    expect(errorsOf(unbilled)).toEqual([]);
  });

  it('needs a reading on the day a meter was removed (no_reading_on_removed_on)', () => {
    const a = valid();
    elec(a).meters[0].removed_on = '2019-07-01';
    expect(errorsOf(a)).toEqual([
      { attr: 'supply_addresses.0.meter_points.0.meters.0.removed_on', code: 'no_reading_on_removed_on' },
    ]);
    elec(a).meters[0].reading_history.push({
      register_id: '1',
      reading_date: '2019-07-01',
      reading_value: '990',
      reading_type: 'ROUTINE',
      billed: true,
    });
    expect(errorsOf(a)).toEqual([]);
  });

  it('refuses overlapping agreements and an agreement ending before it starts', () => {
    const a = valid();
    elec(a).agreements[0].effective_to = '2019-08-02';
    gas(a).agreements.push({ tariff_code: 'X', effective_from: '2020-01-01', effective_to: '2019-12-31' });
    expect(errorsOf(a)).toEqual([
      {
        attr: 'supply_addresses.0.meter_points.0.agreements.1.effective_from',
        code: 'gaps_or_overlaps_in_agreement_dates',
      },
      { attr: 'supply_addresses.0.meter_points.1.agreements.1.effective_to', code: 'start_date_later_than_end_date' },
      {
        attr: 'supply_addresses.0.meter_points.1.agreements.1.effective_from',
        code: 'gaps_or_overlaps_in_agreement_dates',
      },
    ]);
  });

  it("checks each transaction with the transactions endpoint's rules", () => {
    const a = valid();
    a.current_statement_transactions[0].type = 'GIFT';
    a.historical_statement_transactions[1].amount = '1.00000000001';
    expect(errorsOf(a)).toEqual([
      { attr: 'current_statement_transactions.0.type', code: 'invalid' },
      { attr: 'historical_statement_transactions.1.amount', code: 'max_decimal_places' },
    ]);
  });

  it('keeps historical transactions in closed statements and current ones in the open period', () => {
    const a = valid();
    a.historical_statement_transactions[0].transaction_date = '2019-08-01';
    a.current_statement_transactions[0].transaction_date = '2019-07-31';
    a.current_statement_transactions.push({
      ...a.current_statement_transactions[0],
      transaction_date: '2019-09-01',
      transaction_id: 'H2',
    });
    expect(errorsOf(a)).toEqual([
      {
        attr: 'historical_statement_transactions.0.transaction_date',
        code: 'historical_statement_transaction_after_last_statement_closing_date',
      },
      {
        attr: 'current_statement_transactions.0.transaction_date',
        code: 'current_statement_transaction_before_current_statement_opening_date',
      },
      { attr: 'current_statement_transactions.1.transaction_id', code: 'duplicate_transaction_ids' },
    ]);
    const noClosing = valid();
    delete noClosing.last_statement_closing_date;
    delete noClosing.last_statement_issue_date;
    expect(errorsOf(noClosing)).toEqual([
      {
        attr: 'historical_statement_transactions',
        code: 'historical_statement_transactions_without_last_statement_closing_date_or_last_billed_to_date',
      },
    ]);
  });

  it("takes the ledger as the contract's `ledgers` list too, but not both forms at once", () => {
    const a = valid();
    const ledger = {
      current_statement_transactions: a.current_statement_transactions,
      historical_statement_transactions: a.historical_statement_transactions,
      last_statement_closing_date: a.last_statement_closing_date,
      last_statement_balance: a.last_statement_balance,
      last_statement_issue_date: a.last_statement_issue_date,
      ledger_balance: '30.00',
    };
    for (const k of Object.keys(ledger)) delete a[k];
    a.ledgers = [ledger];
    expect(errorsOf(a)).toEqual([]);
    a.ledgers[0].last_statement_issue_date = '2019-07-30';
    expect(errorsOf(a)).toEqual([
      { attr: 'ledgers.0.last_statement_issue_date', code: 'last_statement_issued_before_closing_date' },
    ]);
    const both = { ...valid(), ledgers: [ledger] };
    expect(errorsOf(both)).toEqual([{ attr: 'ledgers', code: 'fields_are_mutually_exclusive' }]);
    expect(errorsOf({ ...valid(), ledgers: [ledger, ledger] })).toEqual([{ attr: 'ledgers', code: 'max_length' }]);
  });

  it('refuses repeated metadata keys', () => {
    const a = valid();
    a.metadata.push({ key: 'origin', value: 1 });
    expect(errorsOf(a)).toEqual([{ attr: 'metadata.1.key', code: 'metadata_has_duplicate_keys' }]);
  });

  it('reuses the note and statement rules', () => {
    const a = valid();
    a.notes.push({ is_pinned: true });
    a.statements[0].bill_period_to_date = '2019-05-01';
    expect(errorsOf(a)).toEqual([
      { attr: 'notes.2', code: 'note_body_or_document_path_not_found' },
      { attr: 'statements.0.bill_period_to_date', code: 'start_date_later_than_end_date' },
    ]);
  });

  it('refuses an unknown supply type and a gas meter point without its shipper', () => {
    const a = valid();
    elec(a).supply_type = 'HEAT';
    delete gas(a).shipper_mpid;
    const errors = errorsOf(a);
    expect(errors).toContainEqual({ attr: 'supply_addresses.0.meter_points.1.shipper_mpid', code: 'required' });
    expect(errors.map((e) => e.attr)).toContain('supply_addresses.0.meter_points.0.supply_type');
  });

  it("checks a payment schedule's dates", () => {
    const a = valid();
    a.payment_schedules[0].end_date = '2017-12-31';
    expect(errorsOf(a)).toEqual([{ attr: 'payment_schedules.0.end_date', code: 'start_date_later_than_end_date' }]);
  });
});

describe('the check digits', () => {
  it("weigh an MPRN's digits by their place from the right of the check digits", () => {
    // A published worked example (3938424403: 3×8 + 9×7 + … + 4×1 = 234, 234 mod 11 = 3 → "03"); it
    // tells the weights' direction apart, which the contract's 9353824109 does not.
    expect(isValidMprn('3938424403')).toBe(true);
    expect(isValidMprn('3938424430')).toBe(false);
    expect(isValidMprn(MPRN)).toBe(true);
    expect(isValidMprn('12345')).toBe(false);
  });

  it("weigh an MPAN core's digits by the primes, then mod 11 and mod 10", () => {
    expect([MPAN, MPAN_2].map(isValidMpanCore)).toEqual([true, true]);
    expect(isValidMpanCore('1312345678906')).toBe(false);
    expect(isValidMpanCore('131234567890')).toBe(false);
  });
});

describe('identifiers in the fixture', () => {
  it('are the published valid ones', () => {
    expect([MPAN, MPAN_2, MPRN]).toEqual(['1200060176720', '1312345678907', '9353824109']);
  });
});
