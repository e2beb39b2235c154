// `transaction_data` of a transaction that failed its field checks: the shape a 201 echoes (known fields
// only, decimals as decimal strings) as far as the transaction has it, never the raw input. Each known
// field is judged on its own: a valid one is echoed normalised, an invalid scalar as sent (the client
// sees what was refused), an invalid list or object of known shape field by field, anything else left
// out. Unknown fields are never echoed: they may hold anything (deep nesting, megabytes).
import { z } from 'zod';
import { toJson } from './transaction-data';
import { Transaction } from './transaction.schemas';

type Shape = Record<string, z.ZodType>;

/** The longest list echoed item by item: the schemas' own limits are far below it. */
const MAX_ECHOED_ITEMS = 1_000;

/** Without a known type: every field some type has, judged by the first type that has it. */
const ANY_TYPE: Shape = {};
for (const variant of Transaction.options) {
  for (const [key, schema] of Object.entries(variant.shape as Shape)) ANY_TYPE[key] ??= schema;
}

export function failingTransactionEcho(item: unknown): unknown {
  if (!isRecord(item)) return isScalar(item) ? item : null;
  const variant = Transaction.options.find((o) => o.shape.type.value === item.type);
  return echoObject(variant ? variant.shape : ANY_TYPE, item);
}

function echoObject(shape: Shape, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const echoed = echoField(shape[key]!, value[key]);
    if (echoed !== undefined) out[key] = echoed;
  }
  return out;
}

function echoField(schema: z.ZodType, value: unknown): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data === undefined ? undefined : toJson(parsed.data);
  if (isScalar(value)) return value;
  const inner = unwrap(schema);
  if (inner instanceof z.ZodObject && isRecord(value)) return echoObject(inner.shape, value);
  if (inner instanceof z.ZodArray && Array.isArray(value) && value.length <= MAX_ECHOED_ITEMS) {
    const element = unwrap(inner.element as z.ZodType);
    if (element instanceof z.ZodObject) {
      const shape: Shape = element.shape;
      return value.map((v): unknown => (isRecord(v) ? echoObject(shape, v) : isScalar(v) ? v : null));
    }
  }
  return undefined;
}

/** Through optional, default and preprocess wrappers to the schema that describes the value's shape. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let i = 0; i < 8; i++) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.out as z.ZodType;
    else break;
  }
  return s;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
