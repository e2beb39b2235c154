// The account a migration stages and creates: a named subset of the published contract's
// `EnergyAccount`, with its field names. Every string is length-bounded before any pattern runs and
// every list is bounded. A field the contract names but this service does not support is refused with
// `field_not_supported` at its attr, never dropped; names the contract does not know are stripped, as
// on every other endpoint. The cross-checks that need the database (operations teams, products, meter
// points on other accounts) are in account-import.use-cases.ts.
import { z } from 'zod';
import { DecimalField, IdentifierField, IsoDate, isCalendarDay } from '../platform/fields';
import { Note } from '../notes/note.schemas';
import { HistoricalStatement } from '../statements/statement.schemas';
import { INSTRUCTION_TYPES } from '../payment-instructions/payment-instruction.schemas';
import { Transaction } from '../transactions/transaction.schemas';
import { isEmailAddress, isUkPhoneNumber, isUkPostcode, isValidMpanCore, isValidMprn } from './identifiers';

/** Bounds on every list of the account (the body size limit bounds the whole). */
export const LIMITS = {
  customers: 20,
  psr: 50,
  supplyAddresses: 50,
  meterPointsPerAddress: 20,
  metersPerMeterPoint: 20,
  registersPerMeter: 48,
  readingsPerMeter: 500,
  agreementsPerMeterPoint: 100,
  transactions: 10_000,
  notes: 1_000,
  statements: 1_000,
  paymentInstructions: 20,
  paymentSchedules: 50,
  metadata: 100,
  ledgers: 1,
} as const;

const issue = (code: string, message: string, path: PropertyKey[] = []) =>
  ({ code: 'custom', message, params: { code }, path }) as const;

/** Free text that may be blank (the contract's examples send `''` for unused address lines). */
const Text = (max: number) => z.string().max(max);

/** A contract field this service does not support: refused wherever it appears, with any value. */
const NotSupported = z
  .unknown()
  .superRefine((_v, ctx) => {
    ctx.addIssue(issue('field_not_supported', 'This field is not supported by this service.'));
  })
  .optional();

/** `{name: NotSupported}` for each name. */
function notSupported(names: readonly string[]): Record<string, typeof NotSupported> {
  return Object.fromEntries(names.map((n) => [n, NotSupported]));
}

/** A text field checked by `check` once within `max` characters (the length first, so the check is bounded). */
function Checked(max: number, code: string, message: string, check: (s: string) => boolean) {
  return z
    .string()
    .max(max, { abort: true })
    .superRefine((s, ctx) => {
      if (!check(s)) ctx.addIssue(issue(code, message));
    });
}

const Postcode = (max: number) => Checked(max, 'invalid_postcode', 'Enter a valid UK postcode.', isUkPostcode);
const Phone = Checked(32, 'invalid_phone_number', 'Enter a valid UK phone number.', isUkPhoneNumber);
const Email = Checked(254, 'invalid', 'Enter a valid email address.', isEmailAddress);

const Metadata = z
  .array(z.object({ key: IdentifierField(1024), value: z.unknown() }))
  .max(LIMITS.metadata)
  .superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((m, i) => {
      if (seen.has(m.key))
        ctx.addIssue(issue('metadata_has_duplicate_keys', `Key "${m.key}" appears twice.`, [i, 'key']));
      seen.add(m.key);
    });
  });

// ----- Customers -----

/** The contract's customer fields this service does not support. */
const CUSTOMER_NOT_SUPPORTED = [
  'account_roles',
  'alternative_phone_numbers',
  'consents',
  'contact_emails',
  'credit_assessment_id',
  'credit_result',
  'credit_risk_bracket',
  'credit_score',
  'details',
  'label',
  'metadata',
  'portfolio_roles',
  'role',
  'user_details',
  'user_identifier',
] as const;

const Psr = z.object({
  elec_industry_code: IdentifierField(8).nullable().optional(),
  gas_industry_code: IdentifierField(8).nullable().optional(),
  effective_from: IsoDate.or(z.string().max(40)),
  effective_to: z.string().max(40).nullable().optional(),
  description: Text(255).nullable().optional(),
  additional_information: Text(1024).nullable().optional(),
});

const CustomerPreferences = z.object({
  is_user_psr_consent_obtained: z.boolean().nullable().optional(),
  opted_into_associated_companies: z.boolean().optional(),
  opted_into_offers: z.boolean().optional(),
  opted_into_recommended: z.boolean().optional(),
  opted_into_sms: z.boolean().optional(),
  opted_into_third_parties: z.boolean().optional(),
  opted_into_updates: z.boolean().optional(),
  opted_into_whatsapp: z.boolean().optional(),
  partner_password: Text(10).optional(),
});

const Customer = z.object({
  title: Text(20).nullable().optional(),
  given_name: Text(255).optional(),
  family_name: Text(255).optional(),
  email: Email.nullable().optional(),
  mobile: Phone.nullable().optional(),
  landline: Phone.nullable().optional(),
  date_of_birth: IsoDate.nullable().optional(),
  salutation: Text(128).nullable().optional(),
  pronouns: Text(32).nullable().optional(),
  deceased: z.enum(['Reported', 'Confirmed', '']).optional(),
  unable_to_read_meters: z.boolean().optional(),
  psr: z.array(Psr).max(LIMITS.psr).optional(),
  customer_preferences: CustomerPreferences.optional(),
  ...notSupported(CUSTOMER_NOT_SUPPORTED),
});

// ----- Supply addresses, meter points, meters -----

const READING_TYPES = ['CUSTOMER', 'ESTIMATE', 'ROUTINE', 'SMART', 'REGULAR'] as const;

const TransferReading = z.object({
  register_id: IdentifierField(32).optional(),
  reading_date: IsoDate,
  reading_value: DecimalField(10, 10),
  reading_type: z.enum(READING_TYPES),
});

const HistoricalReading = TransferReading.extend({
  billed: z.boolean(),
  validation_status: NotSupported,
});

const Register = z.object({
  register_id: IdentifierField(32),
  number_of_digits: z.int().min(1).max(20).optional(),
  tpr: IdentifierField(16).optional(),
  is_settlement: z.boolean().optional(),
  last_billed_to_date: NotSupported,
});

/** The contract's meter fields this service does not support. */
const METER_NOT_SUPPORTED = [
  'is_prepay',
  'prepay_customer_reference_number',
  'prepay_details',
  'smart_commissioned_on',
  'smart_device_id',
  'smart_type',
  'last_billed_to_date',
  'units_of_measure',
] as const;

const meterFields = {
  meter_serial_number: IdentifierField(32),
  installed_on: IsoDate.nullable().optional(),
  removed_on: IsoDate.nullable().optional(),
  transfer_readings: z.array(TransferReading).max(LIMITS.readingsPerMeter).optional(),
  reading_history: z.array(HistoricalReading).max(LIMITS.readingsPerMeter).optional(),
  ...notSupported(METER_NOT_SUPPORTED),
};

const ElectricityMeter = z.object({
  ...meterFields,
  registers: z.array(Register).max(LIMITS.registersPerMeter).optional(),
});

const GasMeter = z.object({ ...meterFields, gas_number_of_digits: z.int().min(1).max(20).optional() });

const Agreement = z.object({
  tariff_code: IdentifierField(255),
  effective_from: IsoDate,
  effective_to: IsoDate.nullable().optional(),
  ...notSupported([
    'agreed_at',
    'bespoke_tariff_rates',
    'business_contract_identifier',
    'characteristics',
    'intermediary',
    'rate_overrides',
    'rates_agreed_at',
  ]),
});

/** The contract's meter-point fields (of either supply type) this service does not support. */
const METER_POINT_NOT_SUPPORTED = [
  'agents',
  'aq_history',
  'capacity_values',
  'ccl_exemptions',
  'configuration_periods',
  'dc_to_appoint',
  'dr_in_progress',
  'eac_history',
  'et_in_progress',
  'export_type',
  'is_deenergised',
  'last_billed_to_date',
  'ldz',
  'mam_to_appoint',
  'measurement_class',
  'mop_to_appoint',
  'regular_reading_cycle',
  'smart_refusal_interest',
  'smart_site_visit',
  'vat_exemptions',
] as const;

const meterPointFields = {
  identifier: z.string().max(13, { abort: true }),
  supply_start_date: IsoDate,
  supply_end_date: IsoDate.nullable().optional(),
  agreements: z.array(Agreement).max(LIMITS.agreementsPerMeterPoint).optional(),
  ...notSupported(METER_POINT_NOT_SUPPORTED),
};

const ElectricityMeterPoint = z.object({
  supply_type: z.literal('ELECTRICITY'),
  ...meterPointFields,
  mpid: IdentifierField(4),
  profile_class: z.int().min(0).max(8).optional(),
  ssc: IdentifierField(4).optional(),
  meters: z.array(ElectricityMeter).max(LIMITS.metersPerMeterPoint).optional(),
});

const GasMeterPoint = z.object({
  supply_type: z.literal('GAS'),
  ...meterPointFields,
  mpid: IdentifierField(4),
  shipper_mpid: IdentifierField(3),
  meters: z.array(GasMeter).max(LIMITS.metersPerMeterPoint).optional(),
});

const MeterPoint = z.discriminatedUnion('supply_type', [ElectricityMeterPoint, GasMeterPoint]);

/** The contract's supply-address fields this service does not support. */
const SUPPLY_ADDRESS_NOT_SUPPORTED = [
  'label',
  'metadata',
  'primary_place_of_residence_since',
  'property_administrators',
  'property_external_identifier',
  'supply_delivery_point_identifier',
] as const;

const SupplyAddress = z.object({
  supply_address1: Text(512).min(1),
  supply_address2: Text(512).optional(),
  supply_address3: Text(512).optional(),
  supply_address4: Text(512).optional(),
  supply_address5: Text(512).optional(),
  supply_postcode: Postcode(10),
  is_landlord: z.boolean().optional(),
  customer_at_supply_address_from_date: IsoDate,
  customer_at_supply_address_to_date: IsoDate.nullable().optional(),
  meter_points: z.array(MeterPoint).max(LIMITS.meterPointsPerAddress),
  ...notSupported(SUPPLY_ADDRESS_NOT_SUPPORTED),
});

// ----- Balances, payments -----

const Money = DecimalField(10, 10);

const PaymentInstruction = z.object({
  vendor: z.enum(['STRIPE', 'BOTTOMLINE_GLOBAL_PAYMENTS_HUB', 'BOTTOMLINE_PTX', 'BOTTOMLINE_PTX_BATCHED']),
  type: z.enum(INSTRUCTION_TYPES),
  reference: IdentifierField(512),
  customer_reference: Text(512).optional(),
  valid_from: IsoDate.nullable().optional(),
  use_for_scheduled_payments: z.boolean().optional(),
  ...notSupported(['instruction_identifier', 'ledger_code']),
});

const PaymentSchedule = z
  .object({
    amount: DecimalField(8, 2).optional(),
    day_of_month: z.int().min(1).max(28).nullable().optional(),
    frequency: z
      .enum(['MONTHLY', 'QUARTERLY', 'WEEKLY', 'FORTNIGHTLY', 'FOUR_WEEKLY', 'ANNUALLY', 'SIX_MONTHLY'])
      .optional(),
    means: z.enum(['DD', 'CARD', 'MANUAL', 'PAYMENT_SLIP']),
    start_date: IsoDate,
    end_date: IsoDate.nullable().optional(),
    is_debt_repayment_plan: z.boolean().optional(),
    debt_repayment_element: DecimalField(8, 2).optional(),
    debt_repayment_end_date: IsoDate.optional(),
    ...notSupported([
      'balance_threshold',
      'delay_days',
      'delay_strategy',
      'exempt_from_payment_adequacy',
      'instalments',
      'ledger_code',
      'paid_by',
      'trigger',
    ]),
  })
  .superRefine((s, ctx) => {
    if (s.end_date && isCalendarDay(s.start_date) && isCalendarDay(s.end_date) && s.end_date < s.start_date) {
      ctx.addIssue(issue('start_date_later_than_end_date', 'end_date must not be before start_date.', ['end_date']));
    }
  });

const Transactions = z.array(Transaction).max(LIMITS.transactions);

const ledgerFields = {
  current_statement_transactions: Transactions.optional(),
  historical_statement_transactions: Transactions.optional(),
  last_statement_balance: Money.optional(),
  last_statement_closing_date: IsoDate.optional(),
  last_statement_issue_date: IsoDate.optional(),
};

const Ledger = z.object({
  ...ledgerFields,
  ledger_balance: Money.optional(),
  ...notSupported(['ledger_type', 'identifier']),
});

// ----- The account -----

const ACCOUNT_TYPES = ['DOMESTIC', 'BUSINESS'] as const;

/** The contract's account fields this service does not support. */
const ACCOUNT_NOT_SUPPORTED = [
  'account_billing_options',
  'account_campaigns',
  'affiliate_subdomain',
  'billing_address',
  'billing_customer_reference',
  'billing_delivery_point_identifier',
  'business',
  'business_type',
  'commission_contracts',
  'company_number',
  'complaints',
  'consents',
  'contribution_agreements',
  'dd_reference',
  'debt',
  'debts',
  'deposit_agreements',
  'dunning_path',
  'fit',
  'is_managed',
  'is_portfolio_lead',
  'last_payment_review_date',
  'partner_organisations',
  'payment_adequacy_changes',
  'payment_plans',
  'payment_preferences',
  'payment_promises',
  'portfolio',
  'references',
  'smart_read_cycle_day',
  'smart_read_frequency',
  'warm_home_discount',
] as const;

const AccountShape = z.object({
  import_supplier: IdentifierField(128),
  external_account_number: IdentifierField(128),
  account_type: z.enum(ACCOUNT_TYPES).optional(),
  billing_name: Text(510).optional(),
  billing_sub_name: Text(256).optional(),
  billing_attention_of: Text(256).optional(),
  billing_address1: Text(512).optional(),
  billing_address2: Text(512).optional(),
  billing_address3: Text(512).optional(),
  billing_address4: Text(512).optional(),
  billing_address5: Text(512).optional(),
  billing_postcode: z.union([z.literal(''), Postcode(512)]).optional(),
  billing_email: Checked(254, 'billing_email_not_valid', 'Enter a valid billing email address.', isEmailAddress)
    .nullable()
    .optional(),
  communication_preference: z.enum(['ONLINE', 'PRINT']).optional(),
  document_accessibility: z.enum(['LARGE_PRINT', 'BRAILLE', 'SPOKEN', '']).optional(),
  language_preference: z.enum(['en-gb', 'en-us', 'es-419', 'fr-fr']).optional(),
  date_of_sale: IsoDate.optional(),
  sales_channel: IdentifierField(64).optional(),
  sales_subchannel: Text(255).optional(),
  unknown_occupier: z.boolean().nullable().optional(),
  operations_team_name: IdentifierField(255).optional(),
  metadata: Metadata.optional(),
  customers: z.array(Customer).max(LIMITS.customers).optional(),
  supply_addresses: z.array(SupplyAddress).max(LIMITS.supplyAddresses).optional(),
  transfer_balance: Money.optional(),
  ...ledgerFields,
  ledgers: z.array(Ledger).max(LIMITS.ledgers).optional(),
  last_billed_to_date: IsoDate.optional(),
  next_bill_due_date: IsoDate.nullable().optional(),
  notes: z.array(Note).max(LIMITS.notes).optional(),
  statements: z.array(HistoricalStatement).max(LIMITS.statements).optional(),
  payment_instructions: z.array(PaymentInstruction).max(LIMITS.paymentInstructions).optional(),
  payment_schedules: z.array(PaymentSchedule).max(LIMITS.paymentSchedules).optional(),
  ...notSupported(ACCOUNT_NOT_SUPPORTED),
});

/** The account as validated: unsupported fields can only be absent. */
export type EnergyAccount = z.output<typeof AccountShape>;
type SupplyAddressT = z.output<typeof SupplyAddress>;
type MeterPointT = z.output<typeof MeterPoint>;
type MeterT = z.output<typeof ElectricityMeter> | z.output<typeof GasMeter>;

/** The account schema: its fields, then the cross-checks (which run only once every field passed). */
export const EnergyAccountSchema = AccountShape.superRefine((a, ctx) => {
  for (const i of crossCheck(a)) ctx.addIssue(issue(i.code, i.message, i.path));
});

export interface AccountIssue {
  code: string;
  message: string;
  path: (string | number)[];
}

/** The cross-checks of the contract's validators this service keeps, in the account's order. */
function crossCheck(a: EnergyAccount): AccountIssue[] {
  const out: AccountIssue[] = [];
  const add = (code: string, message: string, path: (string | number)[]) => out.push({ code, message, path });
  checkCustomers(a, add);
  checkLedger(a, add);
  checkSupplyAddresses(a, add);
  return out;
}

type Add = (code: string, message: string, path: (string | number)[]) => void;

function checkCustomers(a: EnergyAccount, add: Add): void {
  const customers = a.customers ?? [];
  if (a.unknown_occupier === true && customers.length > 0) {
    add('customer_with_unknown_occupier', 'An unknown-occupier account has no customers.', ['customers']);
  }
  if (a.unknown_occupier !== true && customers.length === 0) {
    add('required', 'At least one customer is required unless unknown_occupier is true.', ['customers']);
  }
  // A customer's e-mail signs them in: two customers of one account cannot share it.
  const emails = new Map<string, number>();
  customers.forEach((c, i) => {
    if (!c.email) return;
    const key = c.email.toLowerCase();
    if (emails.has(key)) {
      add(
        'repeated_values_for_unique_customer_detail_namespace',
        `Customers ${emails.get(key)} and ${i} have the same email; it must be unique to one customer.`,
        ['customers', i, 'email'],
      );
    } else emails.set(key, i);
  });
}

/** The one ledger's fields, from the top level or from `ledgers` (never both). */
export function ledgerOf(a: EnergyAccount) {
  const l = a.ledgers?.[0];
  return {
    current: a.current_statement_transactions ?? l?.current_statement_transactions ?? [],
    historical: a.historical_statement_transactions ?? l?.historical_statement_transactions ?? [],
    closingDate: a.last_statement_closing_date ?? l?.last_statement_closing_date,
    issueDate: a.last_statement_issue_date ?? l?.last_statement_issue_date,
    balance: a.last_statement_balance ?? l?.last_statement_balance,
    prefix: a.ledgers?.length ? ['ledgers', 0] : [],
  };
}

function checkLedger(a: EnergyAccount, add: Add): void {
  const topLevel = Object.keys(ledgerFields).filter((k) => a[k as keyof EnergyAccount] !== undefined);
  if (a.ledgers?.length && topLevel.length > 0) {
    add('fields_are_mutually_exclusive', `Send ${topLevel.join(', ')} at the top level or in ledgers, not both.`, [
      'ledgers',
    ]);
    return;
  }
  const l = ledgerOf(a);
  const at = (...p: (string | number)[]) => [...l.prefix, ...p];
  if (l.historical.length > 0 && !l.closingDate) {
    add(
      'historical_statement_transactions_without_last_statement_closing_date_or_last_billed_to_date',
      'Historical statement transactions need last_statement_closing_date.',
      at('historical_statement_transactions'),
    );
  }
  if (l.closingDate && l.issueDate && l.issueDate < l.closingDate) {
    add(
      'last_statement_issued_before_closing_date',
      'last_statement_issue_date must not be before last_statement_closing_date.',
      at('last_statement_issue_date'),
    );
  }
  const ids = new Set<string>();
  const walk = (list: typeof l.current, name: string) =>
    list.forEach((t, i) => {
      if (ids.has(t.transaction_id)) {
        add(
          'duplicate_transaction_ids',
          `transaction_id "${t.transaction_id}" appears more than once.`,
          at(name, i, 'transaction_id'),
        );
      }
      ids.add(t.transaction_id);
      if (!l.closingDate) return;
      if (name === 'historical_statement_transactions' && t.transaction_date > l.closingDate) {
        add(
          'historical_statement_transaction_after_last_statement_closing_date',
          'A historical statement transaction must be dated on or before last_statement_closing_date.',
          at(name, i, 'transaction_date'),
        );
      }
      if (name === 'current_statement_transactions' && t.transaction_date <= l.closingDate) {
        add(
          'current_statement_transaction_before_current_statement_opening_date',
          'A current statement transaction must be dated after last_statement_closing_date.',
          at(name, i, 'transaction_date'),
        );
      }
    });
  walk(l.historical, 'historical_statement_transactions');
  walk(l.current, 'current_statement_transactions');
}

const addressKey = (s: SupplyAddressT) =>
  JSON.stringify(
    [
      s.supply_address1,
      s.supply_address2,
      s.supply_address3,
      s.supply_address4,
      s.supply_address5,
      s.supply_postcode,
    ].map((x) => (x ?? '').replace(/\s+/g, ' ').trim().toUpperCase()),
  );

function checkSupplyAddresses(a: EnergyAccount, add: Add): void {
  const addresses = a.supply_addresses ?? [];
  const seenAddress = new Map<string, number>();
  // Meter point identifier → the address that first named it.
  const seenPoint = new Map<string, number>();
  addresses.forEach((s, i) => {
    const key = addressKey(s);
    if (seenAddress.has(key)) {
      add('duplicate_supply_addresses_found', `Supply address ${i} repeats supply address ${seenAddress.get(key)}.`, [
        'supply_addresses',
        i,
      ]);
    } else seenAddress.set(key, i);
    s.meter_points.forEach((mp, j) => {
      const path = ['supply_addresses', i, 'meter_points', j];
      const first = seenPoint.get(mp.identifier);
      if (first === i) {
        add('duplicate_meter_points_provided', `Meter point ${mp.identifier} appears twice at this address.`, [
          ...path,
          'identifier',
        ]);
      } else if (first !== undefined) {
        add(
          'duplicate_meter_points_on_different_supply_addresses_provided',
          `Meter point ${mp.identifier} is also at supply address ${first}.`,
          [...path, 'identifier'],
        );
      } else seenPoint.set(mp.identifier, i);
      checkMeterPoint(a, mp, path, add);
    });
  });
}

function checkMeterPoint(a: EnergyAccount, mp: MeterPointT, path: (string | number)[], add: Add): void {
  const valid = mp.supply_type === 'ELECTRICITY' ? isValidMpanCore(mp.identifier) : isValidMprn(mp.identifier);
  if (!valid) {
    add(
      'invalid_supply_point_identifier',
      mp.supply_type === 'ELECTRICITY'
        ? 'An electricity meter point is identified by a 13-digit MPAN core with a valid check digit.'
        : 'A gas meter point is identified by a 6 to 10-digit MPRN with valid check digits.',
      [...path, 'identifier'],
    );
  }
  if (mp.supply_end_date && mp.supply_end_date < mp.supply_start_date) {
    add('start_date_later_than_end_date', 'supply_end_date must not be before supply_start_date.', [
      ...path,
      'supply_end_date',
    ]);
  }
  checkAgreements(mp, path, add);
  (mp.meters ?? []).forEach((m, k) => checkMeter(a, m, [...path, 'meters', k], add));
}

function checkAgreements(mp: MeterPointT, path: (string | number)[], add: Add): void {
  const agreements = mp.agreements ?? [];
  agreements.forEach((g, k) => {
    if (g.effective_to && g.effective_to < g.effective_from) {
      add('start_date_later_than_end_date', 'effective_to must not be before effective_from.', [
        ...path,
        'agreements',
        k,
        'effective_to',
      ]);
    }
  });
  // Periods are [from, to) with an open end meaning "until further notice"; sorted by start, each must
  // end on or before the next one starts.
  const order = agreements.map((g, k) => ({ g, k })).sort((x, y) => (x.g.effective_from < y.g.effective_from ? -1 : 1));
  for (let n = 1; n < order.length; n++) {
    const before = order[n - 1]!.g;
    const next = order[n]!;
    if (!before.effective_to || before.effective_to > next.g.effective_from) {
      add('gaps_or_overlaps_in_agreement_dates', 'The agreements of a meter point must not overlap.', [
        ...path,
        'agreements',
        next.k,
        'effective_from',
      ]);
    }
  }
}

function checkMeter(a: EnergyAccount, m: MeterT, path: (string | number)[], add: Add): void {
  if ('registers' in m && m.registers) {
    const ids = new Set<string>();
    m.registers.forEach((r, k) => {
      if (ids.has(r.register_id)) {
        add('meter_with_duplicate_register_ids', `Register ${r.register_id} appears twice on this meter.`, [
          ...path,
          'registers',
          k,
          'register_id',
        ]);
      }
      ids.add(r.register_id);
    });
  }
  const lastBilled = a.last_billed_to_date;
  const transfer = m.transfer_readings ?? [];
  const history = m.reading_history ?? [];
  if (lastBilled) {
    transfer.forEach((r, k) => {
      if (r.reading_date !== lastBilled) {
        add(
          'transfer_reading_dates_must_match_last_billed_to_date',
          `A transfer reading must be dated last_billed_to_date (${lastBilled}).`,
          [...path, 'transfer_readings', k, 'reading_date'],
        );
      }
    });
    history.forEach((r, k) => {
      if (r.billed && r.reading_date > lastBilled) {
        add(
          'billed_reading_after_last_billed_to_date',
          `A billed reading cannot be dated after last_billed_to_date (${lastBilled}).`,
          [...path, 'reading_history', k, 'reading_date'],
        );
      }
    });
  }
  if (m.removed_on) {
    const removed = m.removed_on;
    const hasReading =
      transfer.some((r) => r.reading_date === removed) || history.some((r) => r.reading_date === removed);
    if (!hasReading) {
      add('no_reading_on_removed_on', 'A removed meter needs a reading on the day it was removed.', [
        ...path,
        'removed_on',
      ]);
    }
  }
}

/** Every meter point of the account: its identifier, supply type and where it sits. */
export function meterPointsOf(
  a: EnergyAccount,
): { identifier: string; supplyType: string; path: (string | number)[] }[] {
  return (a.supply_addresses ?? []).flatMap((s, i) =>
    s.meter_points.map((mp, j) => ({
      identifier: mp.identifier,
      supplyType: mp.supply_type,
      path: ['supply_addresses', i, 'meter_points', j, 'identifier'],
    })),
  );
}

/** Every agreement's tariff code with where it sits. */
export function tariffCodesOf(a: EnergyAccount): { code: string; path: (string | number)[] }[] {
  return (a.supply_addresses ?? []).flatMap((s, i) =>
    s.meter_points.flatMap((mp, j) =>
      (mp.agreements ?? []).map((g, k) => ({
        code: g.tariff_code,
        path: ['supply_addresses', i, 'meter_points', j, 'agreements', k, 'tariff_code'],
      })),
    ),
  );
}

// ----- The request bodies -----

/** v2 validate: the account wrapped in `payload`. */
export const V2ValidateRequest = z.object({ payload: EnergyAccountSchema });

/** The field sets of each part of the account, for the test that compares them with the contract's. */
export const PART_SHAPES = {
  EnergyAccount: AccountShape.shape,
  Customer: Customer.shape,
  SupplyAddress: SupplyAddress.shape,
  ElectricityMeterPoint: ElectricityMeterPoint.shape,
  GasMeterPoint: GasMeterPoint.shape,
  ElectricityMeter: ElectricityMeter.shape,
  GasMeter: GasMeter.shape,
  Agreement: Agreement.shape,
} as const;
