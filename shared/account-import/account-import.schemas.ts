// The account a migration stages and creates: a named subset of the published contract's
// `EnergyAccount`, with its field names. Every string is length-bounded before any pattern runs and
// every list is bounded. A field the contract names but this service does not support is refused with
// `field_not_supported` at its attr, never dropped; names the contract does not know are stripped, as
// on every other endpoint. The cross-checks between fields are in energy-account.ts; those that need the
// database (operations teams, products, meter points on other accounts) in account-import.use-cases.ts.
import { z } from 'zod';
import { DecimalField, IdentifierField, IsoDate, isCalendarDay } from '../platform/fields';
import { Note } from '../notes/note.schemas';
import { HistoricalStatement } from '../statements/statement.schemas';
import { INSTRUCTION_TYPES } from '../payment-instructions/payment-instruction.schemas';
import { Transaction } from '../transactions/transaction.schemas';
import { isEmailAddress, isUkPhoneNumber, isUkPostcode } from './identifiers';
import {
  CUSTOMER_NOT_SUPPORTED,
  METER_NOT_SUPPORTED,
  METER_POINT_NOT_SUPPORTED,
  SUPPLY_ADDRESS_NOT_SUPPORTED,
  ACCOUNT_NOT_SUPPORTED,
} from './unsupported-fields';

/** Bounds on every list of the account (the body size limit bounds the whole). */
/** The contract's `pronouns` values (EDF variant). */
const PRONOUNS = [
  'OTHER',
  'E_EM_EIR',
  'EY_EM_EIR',
  'FAE_FAER_FAERS',
  'HE_HIM_HIS',
  'PER_PER_PERS',
  'SHE_HER_HERS',
  'THEY_THEM_THEIRS',
  'VE_VER_VIS',
  'XE_XEM_XYR',
  'ZE_HIR_HIRS',
  'ZE_ZIR_ZIRS',
  'ZIE_HIR_HIRS',
  'ZIE_ZIR_ZIRS',
] as const;

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

export const issue = (code: string, message: string, path: PropertyKey[] = []) =>
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
  // The contract's values ('' and null: not said).
  pronouns: z.enum(PRONOUNS).or(z.literal('')).nullable().optional(),
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

const meterFields = {
  meter_serial_number: IdentifierField(32),
  installed_on: IsoDate.nullable().optional(),
  removed_on: IsoDate.nullable().optional(),
  transfer_readings: z.array(TransferReading).max(LIMITS.readingsPerMeter).optional(),
  reading_history: z.array(HistoricalReading).max(LIMITS.readingsPerMeter).optional(),
  ...notSupported(METER_NOT_SUPPORTED),
};

export const ElectricityMeter = z.object({
  ...meterFields,
  registers: z.array(Register).max(LIMITS.registersPerMeter).optional(),
});

export const GasMeter = z.object({ ...meterFields, gas_number_of_digits: z.int().min(1).max(20).optional() });

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

export const MeterPoint = z.discriminatedUnion('supply_type', [ElectricityMeterPoint, GasMeterPoint]);

export const SupplyAddress = z.object({
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

export const ledgerFields = {
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

export const AccountShape = z.object({
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
