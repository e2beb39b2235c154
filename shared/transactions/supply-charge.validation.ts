// The contract's SUPPLY_CHARGE checks that need stored state: the product exists, each line item's
// rate band has a rate of that product over the item's whole period, a price_per_unit that is sent
// equals that rate's, and no line item overlaps a period already charged on the same supply point.
// Pure: the worker loads the catalogue and the charged periods under the account lock.
import type { FieldError } from '../platform/errors';
import type { PlannedTransaction, Rejection } from './import-plan';
import type { ChargedPeriod, ProductRate } from './transaction.repository';
import type { TransactionInput } from './transaction.schemas';

type SupplyCharge = Extract<TransactionInput, { type: 'SUPPLY_CHARGE' }>;
type LineItem = SupplyCharge['line_items'][number];

export interface SupplyChargeState {
  /** Rates by product code; a code that is not a key has no product. */
  products: Map<string, ProductRate[]>;
  charged: ChargedPeriod[];
}

/** The supply charges a request would add, with their index in the request. */
export function addedSupplyCharges(
  planned: PlannedTransaction[],
): { index: number; plan: PlannedTransaction; charge: SupplyCharge }[] {
  return planned.flatMap((plan) =>
    plan.add && plan.transaction.type === 'SUPPLY_CHARGE'
      ? [{ index: plan.index, plan, charge: plan.transaction }]
      : [],
  );
}

/**
 * A line item's period as a half-open range of days: the contract's own example charges October as
 * 2019-10-01 to 2019-11-01, so the end day is a boundary that the next period may start on; an item
 * that starts and ends on one day covers that day.
 */
export function coveredDays(item: { start_date: string; end_date: string }): { from: string; until: string } {
  return { from: item.start_date, until: item.end_date === item.start_date ? nextDay(item.start_date) : item.end_date };
}

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

const overlaps = (a: { from: string; until: string }, b: { from: string; until: string }) =>
  a.from < b.until && b.from < a.until;

export function checkSupplyCharges(planned: PlannedTransaction[], state: SupplyChargeState): Rejection[] {
  const charged = [...state.charged];
  const rejected: Rejection[] = [];
  for (const { index, plan, charge } of addedSupplyCharges(planned)) {
    const at = `transactions.${index}`;
    const rates = state.products.get(charge.product_code);
    const errors: FieldError[] = rates
      ? charge.line_items.flatMap((item, j) => rateErrors(item, rates, `${at}.line_items.${j}`, charge.product_code))
      : [productMissing(charge.product_code, at)];
    const supplyPoint = charge.supply_point_identifier ?? null;
    charge.line_items.forEach((item, j) => {
      const clash = charged.find(
        (c) => c.supplyPoint === supplyPoint && overlaps(coveredDays(item), coveredDays(toItem(c))),
      );
      if (clash) errors.push(overlapError(item, clash, `${at}.line_items.${j}`));
    });
    if (errors.length > 0) rejected.push({ index, data: plan.data, errors });
    // Later transactions of the same request count this one's periods as charged.
    else charged.push(...charge.line_items.map((i) => ({ supplyPoint, startDate: i.start_date, endDate: i.end_date })));
  }
  return rejected;
}

const toItem = (c: ChargedPeriod) => ({ start_date: c.startDate, end_date: c.endDate });

function productMissing(code: string, at: string): FieldError {
  return {
    attr: `${at}.product_code`,
    code: 'product_code_does_not_exist',
    detail: `Product "${code}" does not exist.`,
  };
}

/** Items priced by rate_specification_code or a time series are not in the catalogue: no rate check. */
function rateErrors(item: LineItem, rates: ProductRate[], at: string, product: string): FieldError[] {
  if (item.rate_band === undefined) return [];
  const days = coveredDays(item);
  const rate = rates.find(
    (r) => r.rateBand === item.rate_band && r.validFrom <= days.from && (r.validTo === null || days.until <= r.validTo),
  );
  if (!rate) {
    const detail = `Product "${product}" has no "${item.rate_band}" rate over the whole period ${item.start_date} to ${item.end_date}.`;
    return [{ attr: `${at}.rate_band`, code: 'line_item_rate_not_found', detail }];
  }
  if (item.price_per_unit !== undefined && !item.price_per_unit.eq(rate.pricePerUnit)) {
    const detail = `price_per_unit ${item.price_per_unit.toFixed()} does not match the "${item.rate_band}" rate of ${rate.pricePerUnit} from ${rate.validFrom}.`;
    return [{ attr: `${at}.price_per_unit`, code: 'price_per_unit_does_not_match_rate', detail }];
  }
  return [];
}

function overlapError(item: LineItem, clash: ChargedPeriod, at: string): FieldError {
  const detail =
    `The period ${item.start_date} to ${item.end_date} overlaps the already charged period ` +
    `${clash.startDate} to ${clash.endDate}${clash.supplyPoint === null ? '' : ` of supply point ${clash.supplyPoint}`}.`;
  return { attr: at, code: 'line_items_overlap_already_charged_period', detail };
}
