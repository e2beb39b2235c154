// What an import job carries: the options as parsed and the request as the API validated it, in the
// JSON form the answer echoes (`transaction_data`), so fields the schemas do not know never reach Redis.
import Decimal from 'decimal.js';
import type { CompactForm, JobPayload } from '../requests/job-declaration';
import { toTransactionData, type TransactionData } from './transaction-data';
import type { TransactionInput } from './transaction.schemas';
import { findEchoes } from './transaction.repository';
import { parseTransactionImport, type TransactionImport } from './transaction.validation';

export interface TransactionImportJson {
  options: TransactionImport['options'];
  request: Omit<TransactionImport['request'], 'transactions'> & { transactions: TransactionData[] };
}

export function toTransactionImportJson({ options, request }: TransactionImport): TransactionImportJson {
  return { options, request: { ...request, transactions: request.transactions.map(toTransactionData) } };
}

export const transactionImportJobPayload: JobPayload<TransactionImport> = {
  // Bump when the request's rules change, so jobs queued under the old rules are judged again.
  // 2: supply charges checked against the product catalogue; line and tax items carry Decimals.
  // 3: identifiers with spaces at either end and text of spaces only are refused.
  version: 3,
  validate(json) {
    const { options, request } = (json ?? {}) as { options?: unknown; request?: unknown };
    return parseTransactionImport({ options, request });
  },
  fromJob(json) {
    const { options, request } = json as TransactionImportJson;
    // The schemas turn every decimal field into a Decimal; the echo (toTransactionData) turns this JSON
    // form into itself (formatMoney keeps at least two places and every digit). So reviving the
    // decimal fields gives back the very import the API validated (test/transactions/job-payload.test.ts).
    const echoes = request.transactions;
    return { options, request: { ...request, transactions: echoes.map(reviveDecimals) }, echoes };
  },
};

const decimal = (v: unknown) => new Decimal(String(v));
const optionalDecimal = (v: unknown) => (v === undefined ? undefined : decimal(v));

type Json = Record<string, unknown>;

/** Every field the transaction schemas parse as a Decimal, from the echo's decimal strings. */
function reviveDecimals(t: TransactionData): TransactionInput {
  const { amount, line_items, tax_items } = t;
  const revived: Json = { ...t, amount: decimal(amount) };
  if (Array.isArray(line_items)) {
    revived.line_items = (line_items as Json[]).map((l) => ({
      ...l,
      number_of_units: decimal(l.number_of_units),
      net_amount: decimal(l.net_amount),
      ...(l.price_per_unit !== undefined ? { price_per_unit: optionalDecimal(l.price_per_unit) } : {}),
      ...(Array.isArray(l.units) ? { units: (l.units as unknown[]).map(decimal) } : {}),
    }));
  }
  if (Array.isArray(tax_items)) {
    revived.tax_items = (tax_items as Json[]).map((x) => ({
      ...x,
      amount: decimal(x.amount),
      value_taxed: decimal(x.value_taxed),
      rate: decimal(x.rate),
    }));
  }
  return revived as unknown as TransactionInput;
}

const ADDED = 'TRANSACTION_ADDED_TO_ACCOUNT';
const SKIPPED = 'TRANSACTION_ALREADY_EXISTS';

interface ImportResult {
  status: typeof ADDED | typeof SKIPPED;
  matches_stored?: false;
  transaction_data: TransactionData;
  added_transaction_id?: unknown;
}

/**
 * A 201's per-item statuses and ids, without the echo of every transaction (most of its bytes): the
 * waiting API holds the request, whose JSON form is that echo. Anything else rides whole.
 */
interface CompactCreated {
  status: 201;
  items: { added: boolean; id?: unknown }[];
}

function compact(answer: { status: number; body: unknown }): CompactCreated | undefined {
  if (answer.status !== 201) return undefined;
  const results = (answer.body as { results: ImportResult[] }).results;
  // A skipped transaction whose stored echo is not the one sent: the API's copy of the request holds only
  // what was sent, so this answer rides whole.
  if (results.some((r) => r.matches_stored === false)) return undefined;
  const items = results.map((r) =>
    r.added_transaction_id === undefined
      ? { added: r.status === ADDED }
      : { added: r.status === ADDED, id: r.added_transaction_id },
  );
  return { status: 201, items };
}

function isCompact(value: unknown): value is CompactCreated {
  const c = value as Partial<CompactCreated> | null;
  return typeof c === 'object' && c !== null && c.status === 201 && Array.isArray(c.items);
}

function expandWith(compact: CompactCreated, echoes: TransactionData[]) {
  const results: ImportResult[] = compact.items.map((item, i) => ({
    status: item.added ? ADDED : SKIPPED,
    transaction_data: echoes[i]!,
    ...(item.id !== undefined ? { added_transaction_id: item.id } : {}),
  }));
  return { status: 201, body: { results } };
}

export const compactTransactionsAnswer: CompactForm = {
  compact,
  // Stored compact only when every transaction was added: each echo is then the stored row's
  // `submitted`, found by its id. A dry run or a skipped transaction stores the whole answer.
  rebuildable(value) {
    return isCompact(value) && value.items.every((item) => item.added && typeof item.id === 'number');
  },
  expand(value, payloadJson) {
    const echoes = (payloadJson as TransactionImportJson).request.transactions;
    if (!isCompact(value) || value.items.length !== echoes.length) return undefined;
    return expandWith(value, echoes);
  },
  async rebuild(db, value) {
    if (!isCompact(value)) return undefined;
    const ids = value.items.map((item) => item.id as number);
    const stored = await findEchoes(db, ids);
    const echoes = ids.map((id) => stored.get(id));
    return echoes.every((e) => e !== undefined) ? expandWith(value, echoes) : null;
  },
};
