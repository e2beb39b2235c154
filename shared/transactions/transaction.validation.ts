// Turns a raw request into a checked import, or into the right 400. A broken envelope (account
// reference, `transactions` itself, the query options, the header) gets the standardized validation
// body; bad transactions get the endpoint's TRANSACTION_IMPORT_ERROR body: its top level names the first
// one (the spec), its `errors` list every failing transaction's fields, so a client drops them all at once.
// The API and the worker call the same function, so a job is judged by exactly the request's rules.
import { z } from 'zod';
import { ValidationError, type FieldError } from '../platform/errors';
import { findUnstorableJson, issueToFieldError } from '../platform/validation';
import { failingTransactionEcho } from './failing-echo';
import type { Rejection } from './import-plan';
import { TransactionImportError } from './transaction.errors';
import {
  ImportOptions,
  TRANSACTION_TYPES,
  TransactionsRequest,
  type ImportOptionsData,
  type TransactionsRequestData,
} from './transaction.schemas';
import type { TransactionData } from './transaction-data';

export interface TransactionImport {
  options: ImportOptionsData;
  request: TransactionsRequestData;
  /** Each transaction's echo (transaction_data), when already at hand: a job's payload is made of them. */
  echoes?: TransactionData[];
}

export function parseTransactionImport(
  raw: { options: unknown; request: unknown },
  limits: { maxItems?: number } = {},
): TransactionImport {
  const options = ImportOptions.safeParse(raw.options ?? {}, { reportInput: true });
  const optionErrors = options.success ? [] : options.error.issues.map(issueToFieldError);
  const tooMany = itemLimitError(raw.request, limits.maxItems);
  if (tooMany) throw envelopeError([...optionErrors, tooMany]);

  const request = TransactionsRequest.safeParse(raw.request, { reportInput: true });
  const issues = request.success ? [] : request.error.issues;
  const envelopeErrors = [...optionErrors, ...issues.filter((i) => itemIndex(i) === undefined).map(toFieldError)];
  if (envelopeErrors.length > 0) throw envelopeError(envelopeErrors);
  if (!options.success) throw envelopeError(optionErrors);
  if (!request.success) throw failingTransactions(raw.request, issues, options.data);
  const unstorable = findUnstorableJson(raw.request);
  if (unstorable) throw unstorableError(raw.request, unstorable, options.data);
  return { options: options.data, request: request.data };
}

/** Text the database cannot hold, or nesting past any schema: on a transaction, that transaction fails. */
function unstorableError(
  request: unknown,
  problem: FieldError,
  options: ImportOptionsData,
): ValidationError | TransactionFieldErrors {
  const index = /^transactions\.(\d+)(\.|$)/.exec(problem.attr)?.[1];
  if (index === undefined) return envelopeError([problem]);
  const submitted = (request as { transactions: unknown[] }).transactions[Number(index)];
  const summary = `Transaction ${index} failed validation: ${problem.detail} (${problem.attr})`;
  return new TransactionFieldErrors(
    [{ index: Number(index), data: failingTransactionEcho(submitted), errors: [problem], summary }],
    options,
  );
}

/**
 * Transactions that failed their field checks: the request's 400 as the field checks alone see it, and
 * where the API's data checks (shared/transactions/data-checks.ts) start from to list every failing one.
 */
export class TransactionFieldErrors extends TransactionImportError {
  constructor(
    readonly rejections: Rejection[],
    readonly options: ImportOptionsData,
  ) {
    const first = rejections[0]!;
    super(
      first.data,
      rejections.flatMap((r) => r.errors),
      first.summary ?? first.errors[0]!.detail,
    );
  }
}

function itemLimitError(request: unknown, maxItems: number | undefined): FieldError | undefined {
  const items = (request as { transactions?: unknown } | null)?.transactions;
  if (maxItems === undefined || !Array.isArray(items) || items.length <= maxItems) return undefined;
  return { attr: 'transactions', code: 'max_length', detail: `Ensure this list has no more than ${maxItems} items.` };
}

function envelopeError(errors: FieldError[]): ValidationError {
  const first = errors[0]!;
  return new ValidationError(errors, `${first.attr}: ${first.detail}`);
}

/** Zero-based index of the transaction an issue belongs to; undefined for envelope issues. */
function itemIndex(issue: z.core.$ZodIssue): number | undefined {
  const [field, index] = issue.path;
  return field === 'transactions' && typeof index === 'number' ? index : undefined;
}

function failingTransactions(
  request: unknown,
  issues: z.core.$ZodIssue[],
  options: ImportOptionsData,
): TransactionFieldErrors {
  // Stable sort: each transaction's errors stay in the schema's order, transactions in the request's.
  const byItem = issues.map((issue) => ({ index: itemIndex(issue)!, issue })).sort((a, b) => a.index - b.index);
  const items = (request as { transactions: unknown[] }).transactions;
  const rejections: Rejection[] = [];
  for (const { index, issue } of byItem) {
    const error = toFieldError(issue);
    const last = rejections.at(-1);
    if (last?.index === index) {
      last.errors.push(error);
      continue;
    }
    const submitted = items[index];
    const id = (submitted as { transaction_id?: unknown } | null)?.transaction_id;
    const named = typeof id === 'string' ? ` (transaction_id "${id}")` : '';
    const summary = `Transaction ${index}${named} failed validation: ${error.detail} (${error.attr})`;
    rejections.push({ index, data: failingTransactionEcho(submitted), errors: [error], summary });
  }
  return new TransactionFieldErrors(rejections, options);
}

/**
 * As issueToFieldError, plus two union verdicts it words as a bare "invalid": the discriminated union's
 * on `type`, and DecimalField's (number or string) on a missing or null value.
 */
function toFieldError(issue: z.core.$ZodIssue): FieldError {
  if (issue.code !== 'invalid_union') return issueToFieldError(issue);
  const attr = issue.path.map(String).join('.');
  const input = (issue as { input?: unknown }).input;
  const discriminated = (issue as { discriminator?: string }).discriminator === 'type';
  const value = discriminated ? (input as { type?: unknown } | null)?.type : input;
  if (value === undefined) return { attr, code: 'required', detail: 'This field is required.' };
  if (value === null) return { attr, code: 'null', detail: 'This field may not be null.' };
  if (!discriminated) return issueToFieldError(issue);
  return {
    attr,
    code: 'invalid_choice',
    detail: `"${typeof value === 'string' ? value : JSON.stringify(value)}" is not a valid choice. Valid choices: ${TRANSACTION_TYPES.join(', ')}.`,
  };
}
