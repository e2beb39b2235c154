// Deciding, before anything is written, what an import does with each transaction: skip it (already
// on the account), add it on its own date, add it moved into the open statement period, or reject
// the whole request (outside the period without force, or no open period at all).
import { describePeriod, nearestDayWithin } from './statement-period';
import { sameJson, toTransactionData, type TransactionData } from './transaction-data';
import type { FieldError } from '../platform/errors';
import { TransactionImportError } from './transaction.errors';
import type { PlannedAccount, NewTransaction, OpenPeriod } from './transaction.repository';
import type { TransactionInput } from './transaction.schemas';

export interface PlannedTransaction {
  /** Its place in the request. */
  index: number;
  transaction: TransactionInput;
  /** The echo: the one sent for a transaction to add, the stored one for a transaction the account has. */
  data: TransactionData;
  add: boolean;
  /** Set on a transaction the account has: whether what was sent is what is stored. */
  matchesStored?: boolean;
  /** The date it is stored with: the submitted one, or the nearest day of the open period. */
  date: string;
}

/**
 * Every transaction planned (in request order), and the ones the open period refuses. `existing`: the
 * stored echo of each transaction_id the account has. `echoes`: each transaction's echo when already at
 * hand (a job's payload), else it is built here. `positions`: each transaction's place in the request,
 * when only some of a request's transactions are planned.
 */
export function planImport(
  transactions: TransactionInput[],
  existing: Map<string, TransactionData>,
  account: PlannedAccount,
  force: boolean,
  echoes?: TransactionData[],
  positions?: number[],
): { planned: PlannedTransaction[]; rejected: Rejection[] } {
  const planned: PlannedTransaction[] = [];
  const rejected: Rejection[] = [];
  for (const [i, transaction] of transactions.entries()) {
    const index = positions?.[i] ?? i;
    const data = echoes?.[i] ?? toTransactionData(transaction);
    const submittedDate = transaction.transaction_date;
    // Skipped transactions are not held to the period: a retry after the period rolled over still passes.
    const stored = existing.get(transaction.transaction_id);
    if (stored) {
      planned.push({
        index,
        transaction,
        data: stored,
        add: false,
        date: submittedDate,
        matchesStored: sameJson(data, stored),
      });
      continue;
    }
    const period = account.openPeriod;
    const date = period ? nearestDayWithin(period, submittedDate) : submittedDate;
    if (!period) rejected.push(noOpenPeriod(index, data, account));
    else if (date !== submittedDate && !force) rejected.push(outsidePeriod(index, data, account, period));
    planned.push({ index, transaction, data, add: true, date });
  }
  return { planned, rejected };
}

/** One failing transaction: its place in the request, its echo and its field errors. */
export interface Rejection {
  index: number;
  data: unknown;
  errors: FieldError[];
  /** The answer's `error_detail` when this one is first; else its first error's detail. */
  summary?: string;
}

/** The request's 400: the first failing transaction on top, every one's field errors in request order. */
export function rejectionOf(rejected: Rejection[]): TransactionImportError {
  const ordered = [...rejected].sort((a, b) => a.index - b.index);
  const first = ordered[0]!;
  return new TransactionImportError(
    first.data,
    ordered.flatMap((r) => r.errors),
    first.summary ?? first.errors[0]!.detail,
  );
}

export function isMoved(p: PlannedTransaction): boolean {
  return p.add && p.date !== p.transaction.transaction_date;
}

export function toNewTransaction(p: PlannedTransaction, period: OpenPeriod | null): NewTransaction {
  const { transaction: t, data } = p;
  const moved = isMoved(p);
  return {
    transactionId: t.transaction_id,
    transactionDate: p.date,
    originalDate: moved ? t.transaction_date : null,
    description:
      moved && period
        ? `Transaction date moved from ${t.transaction_date} to ${p.date}: the original date is outside ` +
          `the open statement period ${describePeriod(period)}.`
        : null,
    submitted: data,
  };
}

/** The body of the one pinned note that tells support staff which dates a request moved. */
export function movedNoteBody(moved: PlannedTransaction[], period: OpenPeriod): string {
  const lines = moved.map(
    (p) =>
      `- transaction ${p.transaction.transaction_id} (${p.transaction.type} ${String(p.data.amount)}): ` +
      `moved from ${p.transaction.transaction_date} to ${p.date}`,
  );
  return [
    `Imported transactions dated outside the open statement period ${describePeriod(period)} were moved into it:`,
    ...lines,
  ].join('\n');
}

function outsidePeriod(index: number, data: TransactionData, account: PlannedAccount, period: OpenPeriod): Rejection {
  const detail =
    `${String(data.transaction_date)} of ${String(data.type)} transaction "${String(data.transaction_id)}" ` +
    `of ${String(data.amount)} is not within the open statement period ${describePeriod(period)} of account ` +
    `${account.platformAccountNumber}. Send it with force_add_to_current_statement=true to move it into the period.`;
  return {
    index,
    data,
    errors: [
      { attr: `transactions.${index}.transaction_date`, code: 'transaction_outside_open_statement_period', detail },
    ],
  };
}

function noOpenPeriod(index: number, data: TransactionData, account: PlannedAccount): Rejection {
  const detail =
    `Account ${account.platformAccountNumber} has no open statement period to add ` +
    `transaction "${String(data.transaction_id)}" to.`;
  return {
    index,
    data,
    errors: [{ attr: `transactions.${index}.transaction_date`, code: 'no_open_statement_period', detail }],
  };
}
