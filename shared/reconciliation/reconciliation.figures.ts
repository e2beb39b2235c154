// The figures a reconciliation compares per imported account. The endpoint writes them and the
// migration client computes them from its input files, so both sides read this one list: a figure
// added here shows up in the endpoint's NDJSON and CSV and in the client's report at once.
// Pure data, no database: the client imports it.
import { TRANSACTION_TYPES } from '../transactions/transaction.schemas';

export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** count: an integer; amount: an exact decimal carried as a string; flag: a boolean (compared as 0/1). */
type FigureKind = 'count' | 'amount' | 'flag';

export interface Figure {
  name: string;
  kind: FigureKind;
}

const typeName = (type: TransactionType) => type.toLowerCase();

export const FIGURES: readonly Figure[] = [
  { name: 'notes_count', kind: 'count' },
  { name: 'transactions_count', kind: 'count' },
  ...TRANSACTION_TYPES.flatMap((type): Figure[] => [
    { name: `transactions_${typeName(type)}_count`, kind: 'count' },
    { name: `transactions_${typeName(type)}_amount`, kind: 'amount' },
  ]),
  { name: 'statements_count', kind: 'count' },
  // Minor units (statement gross_amount is an integer of minor units), summed exactly.
  { name: 'statements_gross_amount', kind: 'amount' },
  { name: 'payment_instruction_active', kind: 'flag' },
  // The account's transfer_balance as it was imported (0 for an account imported without one).
  { name: 'opening_balance', kind: 'amount' },
];

/**
 * What the service added to an account itself, not sent by the migration: today the pinned note that
 * says which transactions force_add_to_current_statement moved. Reported beside the figures, never
 * compared with the files (the figures above count only what was sent).
 */
export const SERVICE_FIGURES: readonly Figure[] = [{ name: 'service_notes_count', kind: 'count' }];

export const transactionCountFigure = (type: TransactionType) => `transactions_${typeName(type)}_count`;
export const transactionAmountFigure = (type: TransactionType) => `transactions_${typeName(type)}_amount`;

/** One reconciliation row as the endpoint streams it. */
export type ReconciliationRow = {
  external_account_number: string;
  platform_account_number: string;
} & Record<string, string | number | boolean>;

export const ACCOUNT_COLUMNS = ['external_account_number', 'platform_account_number'] as const;
