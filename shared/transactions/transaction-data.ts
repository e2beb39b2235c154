// `transaction_data`: a checked transaction as responses echo it and as it is stored (`submitted`).
// Decimals become strings with at least two places and every submitted digit; dates stay as sent;
// fields the schemas do not know are not echoed.
import Decimal from 'decimal.js';
import { formatMoney } from '../platform/fields';
import type { TransactionInput } from './transaction.schemas';

export type TransactionData = Record<string, unknown>;

export function toTransactionData(t: TransactionInput): TransactionData {
  return toJson(t) as TransactionData;
}

/**
 * Whether two echoes hold the same values, whatever the order of their keys (jsonb stores an object's
 * keys in its own order). Echoes are JSON trees the schemas bound in depth and size.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((k) => Object.hasOwn(right, k) && sameJson(left[k], right[k]))
  );
}

/** A checked value in its echo's JSON form (a Decimal as a money string). */
export function toJson(value: unknown): unknown {
  // Most values are strings and numbers: settled before the Decimal check.
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Decimal) return formatMoney(value);
  if (Array.isArray(value)) return value.map(toJson);
  // Own keys in their order, as Object.entries gives them, without its array of pairs per object.
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = toJson((value as Record<string, unknown>)[key]);
  return out;
}
