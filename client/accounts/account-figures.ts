// What one created account puts on itself, in the reconciliation's figures: its opening balance
// (transfer_balance), and the transactions, notes, statements and payment instructions it carries,
// counted as their own endpoints' lines are. Read from the line as sent (lists bounded by the schema;
// bounded here too, since a line that succeeded passed the service's bounds anyway).
import { TRANSACTION_TYPES } from '../../shared/transactions/transaction.schemas';
import {
  transactionAmountFigure,
  transactionCountFigure,
  type TransactionType,
} from '../../shared/reconciliation/reconciliation.figures';

type Json = Record<string, unknown>;
const MAX_LIST = 100_000;
const listOf = (v: unknown): Json[] =>
  Array.isArray(v) ? (v.slice(0, MAX_LIST).filter((x) => typeof x === 'object' && x !== null) as Json[]) : [];

/** Calls `add(figure, amount)` per contribution and `set(figure, value)` for flags. */
export function accountFigures(
  item: Json,
  add: (name: string, by: string | number) => void,
  set: (name: string, value: number) => void,
): void {
  const ledger = listOf(item.ledgers)[0] ?? {};
  const transactions = [
    ...listOf(item.current_statement_transactions ?? ledger.current_statement_transactions),
    ...listOf(item.historical_statement_transactions ?? ledger.historical_statement_transactions),
  ];
  for (const t of transactions) {
    if (!(TRANSACTION_TYPES as readonly string[]).includes(String(t.type))) continue;
    const type = t.type as TransactionType;
    add('transactions_count', 1);
    add(transactionCountFigure(type), 1);
    add(transactionAmountFigure(type), String(t.amount));
  }
  add('notes_count', listOf(item.notes).length);
  for (const s of listOf(item.statements)) {
    add('statements_count', 1);
    add('statements_gross_amount', typeof s.gross_amount === 'number' ? s.gross_amount : 0);
  }
  if (listOf(item.payment_instructions).length > 0) set('payment_instruction_active', 1);
  if (typeof item.transfer_balance === 'string' || typeof item.transfer_balance === 'number')
    add('opening_balance', String(item.transfer_balance));
}
