// What a reconciliation expects and what it found: the figures the input files should have put on each
// account (only lines the journals record as succeeded or already there), against the service's rows;
// one CSV row per account with expected, found and difference per figure. Decimal arithmetic
// throughout: sums are exact whatever their digits. The service's rows are checked
// (reconciliation-row.ts) before any figure of theirs is read.
import type Decimal from 'decimal.js';
import { closeSync, writeSync } from 'node:fs';
import {
  FIGURES,
  transactionAmountFigure,
  transactionCountFigure,
  type TransactionType,
} from '../shared/reconciliation/reconciliation.figures';
import { csvCell } from '../shared/staff/csv';
import { TRANSACTION_TYPES } from '../shared/transactions/transaction.schemas';
import type { InputEntry } from './input-reader';
import type { Kind } from './item-kinds';
import { openPrivate } from './private-files';
import { Exact, parseReconciliationRow, type Figures } from './reconciliation-row';
import { printable } from './terminal-text';

const zero = new Exact(0);

export function addExpected(expected: Map<string, Figures>, kind: Kind, entry: InputEntry): void {
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
}

export async function compare(
  expected: Map<string, Figures>,
  rows: AsyncIterable<string>,
  out: string,
): Promise<ReconcileSummary> {
  const fd = openPrivate(out, 'w');
  const header = [
    'external_account_number',
    'platform_account_number',
    'status',
    ...FIGURES.flatMap((f) => [`${f.name}_expected`, `${f.name}_found`, `${f.name}_difference`]),
  ];
  writeSync(fd, header.join(',') + '\r\n');
  const totals = new Map(FIGURES.map((f) => [f.name, { expected: zero, found: zero }]));
  let accounts = 0;
  let differing = 0;
  const emit = (account: string, platform: string, found: Figures) => {
    const want = expected.get(account) ?? new Map<string, Decimal>();
    expected.delete(account);
    let differs = false;
    const cells = FIGURES.flatMap((f) => {
      const e = want.get(f.name) ?? zero;
      const g = found.get(f.name) ?? zero;
      const t = totals.get(f.name)!;
      totals.set(f.name, { expected: t.expected.plus(e), found: t.found.plus(g) });
      if (!g.eq(e)) differs = true;
      return [e.toFixed(), g.toFixed(), g.minus(e).toFixed()];
    });
    accounts++;
    if (differs) differing++;
    writeSync(
      fd,
      [
        csvCell(printable(account)),
        csvCell(printable(platform)),
        platform === '' ? 'missing' : differs ? 'differs' : 'ok',
        ...cells,
      ].join(',') + '\r\n',
    );
  };
  let rowNumber = 0;
  for await (const line of rows) {
    if (line === '') continue;
    const row = parseReconciliationRow(line, ++rowNumber);
    emit(row.account, row.platform, row.found);
  }
  // Accounts the files put data on that the service does not list as imported.
  for (const account of [...expected.keys()]) emit(account, '', new Map());
  closeSync(fd);
  return {
    accounts,
    accounts_differing: differing,
    totals: Object.fromEntries(
      [...totals].map(([name, t]) => [
        name,
        { expected: t.expected.toFixed(), found: t.found.toFixed(), difference: t.found.minus(t.expected).toFixed() },
      ]),
    ),
  };
}

export function formatSummary(s: ReconcileSummary, out: string): string {
  const lines = [`reconciled ${s.accounts} accounts: ${s.accounts_differing} differ (report: ${out})`];
  for (const [name, t] of Object.entries(s.totals)) {
    if (t.expected !== '0' || t.found !== '0')
      lines.push(`  ${name}: expected ${t.expected}, found ${t.found}, difference ${t.difference}`);
  }
  return lines.join('\n') + '\n';
}
