// What a reconciliation expects and what it found: the figures the input files should have put on each
// account (only lines the journals record as succeeded or already there), against the service's rows;
// one CSV row per account with expected, found and difference per figure. Decimal arithmetic
// throughout: sums are exact whatever their digits. The service's rows are checked
// (reconciliation-row.ts) before any figure of theirs is read.
import type Decimal from 'decimal.js';
import { closeSync, writeSync } from 'node:fs';
import {
  FIGURES,
  SERVICE_FIGURES,
  transactionAmountFigure,
  transactionCountFigure,
  type TransactionType,
} from '../shared/reconciliation/reconciliation.figures';
import { csvCell } from '../shared/staff/csv';
import { TRANSACTION_TYPES } from '../shared/transactions/transaction.schemas';
import type { InputEntry } from './input-reader';
import type { RunKind } from './item-kinds';
import { accountFigures } from './accounts/account-figures';
import { openPrivate } from './private-files';
import { Exact, parseReconciliationRow, type Figures } from './reconciliation-row';
import { printable } from './terminal-text';

const zero = new Exact(0);

export function addExpected(expected: Map<string, Figures>, kind: RunKind, entry: InputEntry): void {
  const account = entry.account!.external_account_number;
  const figures = expected.get(account) ?? new Map<string, Decimal>();
  expected.set(account, figures);
  const add = (name: string, by: Decimal.Value) => figures.set(name, (figures.get(name) ?? zero).plus(new Exact(by)));
  const item = entry.item!;
  if (kind === 'notes') add('notes_count', 1);
  if (kind === 'statements') {
    add('statements_count', 1);
    add('statements_gross_amount', typeof item.gross_amount === 'number' ? item.gross_amount : 0);
  }
  if (kind === 'payment-instructions') figures.set('payment_instruction_active', new Exact(1));
  if (kind === 'accounts') accountFigures(item, add, (name, value) => figures.set(name, new Exact(value)));
  if (kind === 'transactions' && (TRANSACTION_TYPES as readonly string[]).includes(String(item.type))) {
    const type = item.type as TransactionType;
    add('transactions_count', 1);
    add(transactionCountFigure(type), 1);
    add(transactionAmountFigure(type), String(item.amount));
  }
}

export interface ReconcileSummary {
  supplier?: string;
  accounts: number;
  accounts_differing: number;
  totals: Record<string, { expected: string; found: string; difference: string }>;
  /** What the service added itself (its moved-transactions notes), in total: not compared. */
  added_by_service: Record<string, string>;
}

/** Writes the CSV report, one row per account, and the summary (no account is left out). */
export async function compare(
  expected: Map<string, Figures>,
  rows: AsyncIterable<string>,
  out: string,
): Promise<ReconcileSummary> {
  const report = new ReportWriter(out, expected);
  let rowNumber = 0;
  for await (const line of rows) {
    if (line === '') continue;
    const row = parseReconciliationRow(line, ++rowNumber);
    report.account(row.account, row.platform, row.found, row.added);
  }
  return report.finish();
}

/** The open report file and the running totals over the accounts written so far. */
class ReportWriter {
  private readonly fd: number;
  private readonly totals = emptyTotals();
  private readonly added = new AddedTotals();
  private accounts = 0;
  private differing = 0;

  constructor(
    out: string,
    /** What the files should have put on each account; an account leaves it once written. */
    private readonly expected: Map<string, Figures>,
  ) {
    this.fd = openPrivate(out, 'w');
    const header = [
      'external_account_number',
      'platform_account_number',
      'status',
      'account_created',
      ...FIGURES.flatMap((f) => [`${f.name}_expected`, `${f.name}_found`, `${f.name}_difference`]),
      ...SERVICE_FIGURES.map((f) => f.name),
    ];
    writeSync(this.fd, header.join(',') + '\r\n');
  }

  /** One account's row: expected, found and difference per figure; platform '' means not listed. */
  account(account: string, platform: string, found: Figures, added: Figures = new Map()): void {
    const want = this.expected.get(account) ?? new Map<string, Decimal>();
    this.expected.delete(account);
    const { cells, differences } = compareFigures(want, found, this.totals);
    const differs = differences.length > 0;
    this.accounts++;
    if (differs) this.differing++;
    const status = platform === '' ? 'missing' : differs ? 'differs' : 'ok';
    const created = platform === '' ? 'no' : 'yes';
    const row = [csvCell(printable(account)), csvCell(printable(platform)), status, created, ...cells];
    row.push(...this.added.add(added));
    writeSync(this.fd, row.join(',') + '\r\n');
  }

  finish(): ReconcileSummary {
    // Accounts the files put data on that the service does not list as imported.
    for (const account of [...this.expected.keys()]) this.account(account, '', new Map());
    closeSync(this.fd);
    return {
      accounts: this.accounts,
      accounts_differing: this.differing,
      totals: Object.fromEntries(
        [...this.totals].map(([name, t]) => [
          name,
          { expected: t.expected.toFixed(), found: t.found.toFixed(), difference: t.found.minus(t.expected).toFixed() },
        ]),
      ),
      added_by_service: this.added.summary(),
    };
  }
}

/** Totals of what the service added itself, per SERVICE_FIGURES name. */
export class AddedTotals {
  private readonly totals = new Map(SERVICE_FIGURES.map((f) => [f.name, zero]));

  /** Adds one account's figures; answers its cells, in SERVICE_FIGURES order. */
  add(added: Figures): string[] {
    return SERVICE_FIGURES.map((f) => {
      const value = added.get(f.name) ?? zero;
      this.totals.set(f.name, this.totals.get(f.name)!.plus(value));
      return value.toFixed();
    });
  }

  summary(): Record<string, string> {
    return Object.fromEntries([...this.totals].map(([name, total]) => [name, total.toFixed()]));
  }
}

/** "the service added 1 note itself (…)": what reconcile reports apart, or nothing when it added none. */
export function describeAdded(added: Record<string, string>): string | undefined {
  const notes = added.service_notes_count ?? '0';
  if (notes === '0') return undefined;
  return (
    `the service added ${notes} note${notes === '1' ? '' : 's'} itself (the pinned note on moved ` +
    `transactions): reported apart, not compared with the files`
  );
}

/** Running totals of the expected and found figures, per figure name. */
export type FigureTotals = Map<string, { expected: Decimal; found: Decimal }>;

export const emptyTotals = (): FigureTotals => new Map(FIGURES.map((f) => [f.name, { expected: zero, found: zero }]));

/**
 * One account's figures, expected against found: the CSV cells (expected, found, difference per figure),
 * the figures that differ (`name: expected → found`), and both added to `totals`.
 */
export function compareFigures(
  want: Figures,
  found: Figures,
  totals: FigureTotals,
): { cells: string[]; differences: string[] } {
  const differences: string[] = [];
  const cells = FIGURES.flatMap((f) => {
    const e = want.get(f.name) ?? zero;
    const g = found.get(f.name) ?? zero;
    const t = totals.get(f.name)!;
    totals.set(f.name, { expected: t.expected.plus(e), found: t.found.plus(g) });
    if (!g.eq(e)) differences.push(`${f.name}: ${e.toFixed()} → ${g.toFixed()}`);
    return [e.toFixed(), g.toFixed(), g.minus(e).toFixed()];
  });
  return { cells, differences };
}

export function formatSummary(s: ReconcileSummary, out: string): string {
  const lines = [`reconciled ${s.accounts} accounts: ${s.accounts_differing} differ (report: ${out})`];
  for (const [name, t] of Object.entries(s.totals)) {
    if (t.expected !== '0' || t.found !== '0')
      lines.push(`  ${name}: expected ${t.expected}, found ${t.found}, difference ${t.difference}`);
  }
  const added = describeAdded(s.added_by_service);
  if (added) lines.push(`  ${added}`);
  return lines.join('\n') + '\n';
}
