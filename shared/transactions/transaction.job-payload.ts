// What an import job carries: the options as parsed and the request as the API validated it, in the
// JSON form the answer echoes (`transaction_data`), so fields the schemas do not know never reach Redis.
import Decimal from 'decimal.js';
import type { JobPayload } from '../platform/job-payload';
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
