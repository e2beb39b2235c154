// What an import job carries: the options as parsed and the request as the API validated it, in the
// JSON form the answer echoes (`transaction_data`), so fields the schemas do not know never reach Redis.
import Decimal from 'decimal.js';
import type { CompactAnswer, JobPayload } from '../platform/job-payload';
import { toTransactionData, type TransactionData } from './transaction-data';
import type { TransactionInput } from './transaction.schemas';
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
  version: 1,
  validate(json) {
    const { options, request } = (json ?? {}) as { options?: unknown; request?: unknown };
    return parseTransactionImport({ options, request });
  },
  fromJob(json) {
    const { options, request } = json as TransactionImportJson;
    // The import reads `amount` as a Decimal and every other field through the echo (toTransactionData),
    // which turns this JSON form into itself: formatMoney keeps at least two places and every digit.
    const transactions = request.transactions.map((t) => ({ ...t, amount: new Decimal(String(t.amount)) }) as unknown as TransactionInput);
    return { options, request: { ...request, transactions } };
  },
};

const ADDED = 'TRANSACTION_ADDED_TO_ACCOUNT';
const SKIPPED = 'TRANSACTION_ALREADY_EXISTS';

interface ImportResult {
  status: typeof ADDED | typeof SKIPPED;
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

export const compactTransactionsAnswer: CompactAnswer = {
  compact(answer) {
    if (answer.status !== 201) return undefined;
    const results = (answer.body as { results: ImportResult[] }).results;
    const items = results.map((r) => (r.added_transaction_id === undefined ? { added: r.status === ADDED } : { added: r.status === ADDED, id: r.added_transaction_id }));
    return { status: 201, items } satisfies CompactCreated;
  },
  expand(value, payloadJson) {
    const compact = value as Partial<CompactCreated> | null;
    const echoes = (payloadJson as TransactionImportJson).request.transactions;
    if (compact?.status !== 201 || !Array.isArray(compact.items) || compact.items.length !== echoes.length) return undefined;
    const results: ImportResult[] = compact.items.map((item, i) => ({
      status: item.added ? ADDED : SKIPPED,
      transaction_data: echoes[i]!,
      ...(item.id !== undefined ? { added_transaction_id: item.id } : {}),
    }));
    return { status: 201, body: { results } };
  },
};
