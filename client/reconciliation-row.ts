// One row of the service's reconciliation, checked before any figure becomes a number: a count is a
// bounded non-negative integer, an amount a bounded decimal, a flag a boolean. decimal.js would
// otherwise take "1e900000000" and try to hold a billion digits (the client runs out of memory), and
// Number() would turn such text into Infinity. A row that fails is refused with an error naming it.
import Decimal from 'decimal.js';
import { FIGURES, SERVICE_FIGURES, type Figure } from '../shared/reconciliation/reconciliation.figures';
import { FatalError } from './client-errors';
import { oneLine } from './terminal-text';

/** 64 significant digits: every bounded amount below, and sums of millions of them, stay exact. */
export const Exact = Decimal.clone({ precision: 64 });

export type Figures = Map<string, Decimal>;

export interface ReconciliationRow {
  account: string;
  platform: string;
  found: Figures;
  /** What the service added itself (SERVICE_FIGURES): reported, never compared with the files. */
  added: Figures;
}

/** AccountReference's bound (shared/platform/fields.ts). */
const MAX_ACCOUNT = 128;
const MAX_FIGURE_TEXT = 48;
const COUNT = /^\d{1,15}$/;
const KIND_NAMES = {
  count: 'a whole number of at most 15 digits',
  amount: 'a decimal of at most 30 digits and 12 places',
  flag: 'true or false',
};
/** Up to 30 integer and 12 fraction digits: far past any balance, far below the 64 digits kept. */
const AMOUNT = /^-?\d{1,30}(?:\.\d{1,12})?$/;

export function parseReconciliationRow(line: string, rowNumber: number): ReconciliationRow {
  const refuse = (why: string): never => {
    throw new FatalError(`the service's reconciliation row ${rowNumber} is refused: ${why}`);
  };
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return refuse('it is not JSON');
  }
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return refuse('it is not a JSON object');
  const fields = row as Record<string, unknown>;
  const account = fields.external_account_number;
  const platform = fields.platform_account_number;
  if (typeof account !== 'string' || account === '' || account.length > MAX_ACCOUNT)
    return refuse(`external_account_number is not an account number of at most ${MAX_ACCOUNT} characters`);
  if (typeof platform !== 'string' || platform.length > MAX_ACCOUNT)
    return refuse(
      `platform_account_number (account ${oneLine(account, 40)}) is not a string of at most ${MAX_ACCOUNT}`,
    );
  const figures = (list: readonly Figure[]): Figures => {
    const read: Figures = new Map();
    for (const figure of list) {
      const value = figureValue(figure, fields[figure.name]);
      if (value === undefined) {
        const sent = fields[figure.name];
        const shown = typeof sent === 'string' ? `"${oneLine(sent, 60)}"` : JSON.stringify(sent).slice(0, 60);
        return refuse(`${figure.name} of account ${oneLine(account, 40)} is not ${KIND_NAMES[figure.kind]}: ${shown}`);
      }
      read.set(figure.name, value);
    }
    return read;
  };
  return { account, platform, found: figures(FIGURES), added: figures(SERVICE_FIGURES) };
}

/** The figure as an exact number, or undefined when it is not one of its kind; an absent figure is 0. */
function figureValue(figure: Figure, value: unknown): Decimal | undefined {
  if (value === undefined || value === null) return new Exact(0);
  if (figure.kind === 'flag') {
    if (typeof value === 'boolean') return new Exact(Number(value));
    return value === 0 || value === 1 ? new Exact(value) : undefined;
  }
  // Numbers as JSON gave them: String() of a huge or tiny double is exponent notation, refused below.
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || text.length > MAX_FIGURE_TEXT) return undefined;
  return (figure.kind === 'count' ? COUNT : AMOUNT).test(text) ? new Exact(text) : undefined;
}
