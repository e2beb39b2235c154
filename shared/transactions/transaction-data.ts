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
