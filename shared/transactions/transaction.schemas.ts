// The shapes of POST /v1/data-import/transactions/create/: the body, its query options and the
// Idempotency-Key header. Field sets, enums and decimal formats follow the published contract's Origin
// variant (reason is a free string). The API and the worker parse with these same schemas.
import Decimal from 'decimal.js';
import { z } from 'zod';
import {
  ACCOUNT_ALIAS_WHEN,
  AliasedAccountReference,
  checkAccountNumberAlias,
  DecimalField,
  IdentifierField,
  isCalendarDay,
  IsoDate,
  TextField,
} from '../platform/fields';

const fail = (ctx: z.core.$RefinementCtx, code: string, message: string, path?: PropertyKey[]) =>
  ctx.addIssue({ code: 'custom', message, params: { code }, ...(path ? { path } : {}) });

export const TRANSACTION_TYPES = ['CHARGE', 'CREDIT', 'PAYMENT', 'REPAYMENT', 'SUPPLY_CHARGE'] as const;

// Contract §2.4: 35 values on PAYMENT and 6 on REPAYMENT, both including the blank string.
const PAYMENT_TYPES = [
  'DD_FIRST_COLLECTION',
  'DD_REGULAR_COLLECTION',
  'DD_RE_PRESENTATION',
  'DD_FINAL_COLLECTION',
  'CREDIT_CARD',
  'DEBIT_CARD',
  'CHEQUE',
  'BACS_DEPOSIT',
  'ALLPAY_CASH',
  'ALLPAY_CARD',
  'ALLPAY_CHEQUE',
  'PAYPOINT_CASH',
  'PAYPOINT_CARD',
  'PAYPOINT_CHEQUE',
  'DCA_COLLECTION',
  'BRISTOL_POUND',
  'CASH',
  'FUEL_DIRECT',
  'BPAY',
  'AUSTRALIA_POST',
  'HEEA',
  'HEEAS',
  'CENTREPAY',
  'EAPA_VOUCHER',
  'URGS',
  'BPOINT',
  'EFT',
  'ERRONEOUS_PAYMENT',
  'PAYZONE',
  'POST_OFFICE_CASH',
  'POST_OFFICE_CARD',
  'POST_OFFICE_CHEQUE',
  'POST_OFFICE_SAVINGS_STAMPS',
  'KONBINI',
  '',
] as const;
const REPAYMENT_TYPES = ['DIRECT_CREDIT', 'CARD_REFUND', 'BACS', 'CHEQUE', 'BPAY', ''] as const;
const TAX_UNIT_TYPES = ['PROPORTION', 'CURRENCY_PER_KWH'] as const;

const Code = IdentifierField(255);
const Text = TextField(10_000);
// The reason is free text by the contract's Origin variant, bounded like the codes.
const Reason = TextField(255);

// Nested lists are bounded as well as the top-level one (README "Transactions"): the contract sets no
// limit, these are far above any real bill and far below what would make one request costly.
const MAX_LINE_ITEMS = 1_000;
const MAX_TAX_ITEMS = 100;
const MAX_PARAMS_KEYS = 100;

// The key count is checked before the record is parsed (a preprocess step, which the OpenAPI generator
// renders as the record): parsing 300,000 keys took ~2 s of CPU.
const Params = z.preprocess(
  (value, ctx) => {
    if (
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      Object.keys(value).length > MAX_PARAMS_KEYS
    ) {
      ctx.addIssue({
        code: 'custom',
        message: `Ensure params has no more than ${MAX_PARAMS_KEYS} keys.`,
        params: { code: 'max_length' },
      });
    }
    return value;
  },
  z.record(z.string().max(255), z.unknown()),
);

// Decimal formats of contract §2.4 (whole digits, decimal places).
const Money = DecimalField(10, 10);
const Units = DecimalField(12, 4);
const PricePerUnit = DecimalField(8, 7);
const TaxFigure = DecimalField(15, 5);

// decimal.js rounds results to 20 significant digits by default; sums of 20-digit amounts and
// products of 15- and 16-digit figures need more to stay exact.
const Exact = Decimal.clone({ precision: 64 });

const PositiveMoney = Money.superRefine((d, ctx) => {
  if (!d.gt(0)) fail(ctx, 'amount_must_be_positive', 'Payments and repayments must be positive amounts.');
});

/**
 * The last calendar day that has begun anywhere (UTC+14): a migration from Australia sends its own
 * "today" while it is still yesterday in UTC, and that must not count as the future. Kept until that
 * day ends (it is asked once per transaction, and formatting a Date each time showed in profiles).
 */
let latest = { day: '', from: 0, until: 0 };
function latestStartedDay(): string {
  const now = Date.now();
  if (now < latest.from || now >= latest.until) {
    const shifted = now + 14 * 3600_000;
    const from = now - (shifted % 86_400_000);
    latest = { day: new Date(shifted).toISOString().slice(0, 10), from, until: from + 86_400_000 };
  }
  return latest.day;
}

const TransactionDate = IsoDate.superRefine((s, ctx) => {
  // A date that is no day (2026-13-01) is only `invalid`, never also in the future.
  if (isCalendarDay(s) && s > latestStartedDay()) {
    fail(ctx, 'transaction_in_future', 'The transaction date is in the future.');
  }
});

const TaxItem = z.object({
  amount: Money,
  tax_type: Code,
  value_taxed: TaxFigure,
  rate: TaxFigure,
  unit_type: z.enum(TAX_UNIT_TYPES),
  params: Params.optional(),
});

const RATE_SELECTORS = ['rate_band', 'rate_specification_code', 'time_series_specification_code'] as const;

// The contract's Origin line item requires `params`, yet its own example payload omits it: optional here.
const LineItem = z
  .object({
    rate_band: Code.optional(),
    rate_specification_code: Code.optional(),
    time_series_specification_code: Code.optional(),
    external_rate_identifier: Code.optional(),
    start_date: IsoDate,
    end_date: IsoDate,
    number_of_units: Units,
    net_amount: Money,
    price_per_unit: PricePerUnit.optional(),
    // Checked before the items are parsed (a preprocess step): a million readings cost one length test.
    units: z
      .preprocess((units, ctx) => {
        if (Array.isArray(units) && units.length !== 2) {
          fail(
            ctx,
            'line_item_units_must_be_two_values',
            'Units must be exactly two values: the start and end readings.',
          );
        }
        return units;
      }, z.array(Units))
      .optional(),
    params: Params.optional(),
  })
  .superRefine((item, ctx) => {
    // Only two real days are compared: a malformed date is reported once, by its own field.
    if (isCalendarDay(item.start_date) && isCalendarDay(item.end_date) && item.end_date < item.start_date) {
      fail(ctx, 'start_date_later_than_end_date', 'The end date must not be before the start date.', ['end_date']);
    }
    const product = item.price_per_unit && new Exact(item.price_per_unit).times(item.number_of_units);
    if (product && !matchesProduct(item.net_amount, product)) {
      fail(ctx, 'incorrect_line_item_net_amount', 'The net amount must equal price_per_unit × number_of_units.', [
        'net_amount',
      ]);
    }
    if (RATE_SELECTORS.filter((k) => item[k] !== undefined).length > 1) {
      fail(
        ctx,
        'conflicting_rate_band_specification',
        'Give at most one of rate_band, rate_specification_code and time_series_specification_code.',
      );
    }
  });

/**
 * A net amount matches price × units when it is the product rounded to the net amount's own places
 * (at least cents), either way at the half: clients round with half-up or half-even.
 */
function matchesProduct(net: Decimal, product: Decimal): boolean {
  const places = Math.max(2, net.decimalPlaces());
  return new Exact(net).minus(product).abs().lte(new Exact(10).pow(-places).div(2));
}

const common = {
  transaction_id: Code,
  transaction_date: TransactionDate,
  amount: Money,
};

const Charge = z.object({
  ...common,
  type: z.literal('CHARGE'),
  reason: Reason.optional(),
  display_note: Text.optional(),
  note: Text.optional(),
  tax_items: z.array(TaxItem).max(MAX_TAX_ITEMS).optional(),
});

const Credit = z.object({
  ...common,
  type: z.literal('CREDIT'),
  reason: Reason.optional(),
  display_note: Text.optional(),
  note: Text.optional(),
});

const Payment = z.object({
  ...common,
  amount: PositiveMoney,
  type: z.literal('PAYMENT'),
  reason: Reason.optional(),
  reference: Code.optional(),
  payment_type: z.enum(PAYMENT_TYPES).optional(),
  display_note: Text.optional(),
  note: Text.optional(),
});

const Repayment = z.object({
  ...common,
  amount: PositiveMoney,
  type: z.literal('REPAYMENT'),
  reason: Reason.optional(),
  reference: Code.optional(),
  payment_type: z.enum(REPAYMENT_TYPES).optional(),
  display_note: Text.optional(),
  note: Text.optional(),
});

const SupplyCharge = z
  .object({
    ...common,
    type: z.literal('SUPPLY_CHARGE'),
    display_note: Text.optional(),
    note: Text.optional(),
    product_code: Code,
    supply_point_identifier: Code.optional(),
    line_items: z.array(LineItem).min(1).max(MAX_LINE_ITEMS),
    tax_items: z.array(TaxItem).max(MAX_TAX_ITEMS).optional(),
  })
  .superRefine((t, ctx) => {
    const total = [...t.line_items.map((l) => l.net_amount), ...(t.tax_items ?? []).map((x) => x.amount)].reduce(
      (sum, d) => sum.plus(d),
      new Exact(0),
    );
    if (!total.eq(t.amount)) {
      fail(
        ctx,
        'ledger_transaction_amount_does_not_match_with_line_item_net_amount_and_tax_amount',
        `The amount must equal the line items' net amounts plus the tax amounts (${total.toFixed()}).`,
        ['amount'],
      );
    }
    if (!t.supply_point_identifier && t.line_items.some((l) => l.rate_specification_code !== undefined)) {
      fail(
        ctx,
        'supply_point_identifier_required_for_rate_specification_code',
        'A supply_point_identifier is required when a line item uses rate_specification_code.',
        ['supply_point_identifier'],
      );
    }
  });

export const Transaction = z.discriminatedUnion('type', [Charge, Credit, Payment, Repayment, SupplyCharge]);

export const TransactionsRequest = z
  .object({
    ...AliasedAccountReference,
    dry_run: z.boolean().default(false),
    transactions: z
      .array(Transaction)
      .min(1)
      // Runs even when some items failed, so every failing transaction is found whatever its fault.
      .superRefine(rejectDuplicateIds, { when: (payload) => Array.isArray(payload.value) }),
  })
  .superRefine(checkAccountNumberAlias, ACCOUNT_ALIAS_WHEN);

function rejectDuplicateIds(items: unknown[], ctx: z.core.$RefinementCtx): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const id = (item as { transaction_id?: unknown } | null)?.transaction_id;
    if (typeof id !== 'string') return;
    if (seen.has(id)) {
      fail(ctx, 'duplicate_transaction_ids', `transaction_id "${id}" appears more than once in this request.`, [
        i,
        'transaction_id',
      ]);
    }
    seen.add(id);
  });
}

/** A query-string boolean: true/false/1/0 in any case; booleans pass (the job carries them parsed). */
const QueryBoolean = (fallback: boolean) =>
  z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return fallback;
      if (typeof value === 'boolean') return value;
      const s = typeof value === 'string' ? value.toLowerCase() : undefined;
      if (s === 'true' || s === '1') return true;
      if (s === 'false' || s === '0') return false;
      fail(ctx, 'invalid', 'Must be one of true, false, 1 or 0.');
      return z.NEVER;
    });

export const ImportOptions = z.object({
  check_previously_added: QueryBoolean(true),
  force_add_to_current_statement: QueryBoolean(true),
});

export type TransactionInput = z.output<typeof Transaction>;
export type TransactionsRequestData = z.output<typeof TransactionsRequest>;
export type ImportOptionsData = z.output<typeof ImportOptions>;
