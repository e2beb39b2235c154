// The per-account part of the sign-off pack, written as the service's rows stream in: one CSV row
// (formula-safe text, exact figures) and one HTML row per account, with the running totals. The HTML
// rows go to a side file first, since the page shows the totals above them; `finish` puts the page
// together and removes the side file.
import type Decimal from 'decimal.js';
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { FIGURES, SERVICE_FIGURES } from '../../shared/reconciliation/reconciliation.figures';
import { csvCell } from '../../shared/staff/csv';
import { openPrivate } from '../private-files';
import { AddedTotals, compareFigures, emptyTotals } from '../reconcile-report';
import { Exact, type Figures } from '../reconciliation-row';
import { printable } from '../terminal-text';
import { PACK_TAIL, packHead, tableRow, type PackSummary } from './report-html';
import type { RunsReport } from './report-runs';

const zero = new Exact(0);

export class PackWriter {
  private readonly csv: number;
  private readonly rows: number;
  private readonly totals = emptyTotals();
  private readonly added = new AddedTotals();
  /** Accounts the service lists: "never created" is what was sent and is not among them. */
  readonly listed = new Set<string>();
  accounts = 0;
  differing = 0;
  missing = 0;
  activeInstructions = 0;

  constructor(
    readonly csvFile: string,
    readonly htmlFile: string,
    private readonly expected: Map<string, Figures>,
    private readonly runs: RunsReport,
  ) {
    this.csv = openPrivate(csvFile, 'w');
    this.rows = openPrivate(`${htmlFile}.rows`, 'w');
    const header = [
      'external_account_number',
      'platform_account_number',
      'status',
      'account_created',
      'outstanding_failed_lines',
      'outstanding_failure_codes',
      'payment_instruction',
      ...FIGURES.flatMap((f) => [`${f.name}_expected`, `${f.name}_found`, `${f.name}_difference`]),
      ...SERVICE_FIGURES.map((f) => f.name),
    ];
    writeSync(this.csv, header.join(',') + '\r\n');
  }

  account(account: string, platform: string, found: Figures, added: Figures = new Map()): void {
    const want = this.expected.get(account) ?? new Map<string, Decimal>();
    this.expected.delete(account);
    if (platform !== '') this.listed.add(account);
    const { cells: figures, differences: diffs } = compareFigures(want, found, this.totals);
    const status = platform === '' ? 'missing' : diffs.length > 0 ? 'differs' : 'ok';
    this.accounts++;
    if (diffs.length > 0) this.differing++;
    if (platform === '') this.missing++;
    const failures = this.runs.failedByAccount.get(account);
    const active = found.get('payment_instruction_active')?.eq(1) ?? false;
    if (active) this.activeInstructions++;
    const refused = this.runs.ownershipRefused.get(account);
    const instruction = active ? 'active' : refused ? `refused: ${refused}` : '';
    const codes = [...(failures?.codes ?? [])].join(' ');
    const text = [account, platform].map((v) => csvCell(printable(v)));
    const more = [status, platform === '' ? 'no' : 'yes', String(failures?.count ?? 0), csvCell(codes)];
    const addedCells = this.added.add(added);
    writeSync(this.csv, [...text, ...more, csvCell(instruction), ...figures, ...addedCells].join(',') + '\r\n');
    const get = (name: string) => (found.get(name) ?? zero).toFixed();
    const html = tableRow(
      [
        account,
        platform,
        status,
        platform === '' ? 'no' : 'yes',
        get('opening_balance'),
        get('transactions_count'),
        get('notes_count'),
        get('statements_count'),
        instruction,
        failures ? `${failures.count} (${codes})` : '0',
        diffs.join('; '),
      ],
      status === 'ok' ? undefined : status,
    );
    writeSync(this.rows, html);
  }

  /** Accounts the files put data on that the service does not list, then the page itself. */
  finish(supplier: string): PackSummary {
    for (const account of [...this.expected.keys()]) this.account(account, '', new Map());
    const neverCreated = [...this.runs.accountsSent]
      .filter(([account]) => !this.listed.has(account))
      .map(([account, reason]) => ({ account, reason: reason ?? 'not listed by the service' }));
    const summary: PackSummary = {
      supplier,
      generatedAt: new Date().toISOString(),
      accounts: this.accounts,
      differing: this.differing,
      missing: this.missing,
      totals: [...this.totals].map(([name, t]) => ({
        name,
        expected: t.expected.toFixed(),
        found: t.found.toFixed(),
        difference: t.found.minus(t.expected).toFixed(),
      })),
      addedByService: this.added.summary(),
      outstanding: this.runs.outstanding,
      resolved: this.runs.resolved,
      dryRun: this.runs.dryRun,
      neverCreated: neverCreated.slice(0, 1000),
      neverCreatedCount: neverCreated.length,
      ownership: {
        active: this.activeInstructions,
        refused: [...this.runs.ownershipRefused].slice(0, 1000).map(([account, code]) => ({ account, code })),
      },
      runs: this.runs.runs,
    };
    closeSync(this.csv);
    closeSync(this.rows);
    this.assemble(summary);
    return summary;
  }

  private assemble(summary: PackSummary): void {
    const out = openPrivate(this.htmlFile, 'w');
    writeSync(out, packHead(summary));
    const rows = openSync(`${this.htmlFile}.rows`, 'r');
    const buffer = Buffer.alloc(1 << 20);
    for (let n = readSync(rows, buffer); n > 0; n = readSync(rows, buffer)) writeSync(out, buffer, 0, n);
    closeSync(rows);
    writeSync(out, PACK_TAIL);
    closeSync(out);
    rmSync(`${this.htmlFile}.rows`);
  }
}
