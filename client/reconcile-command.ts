// `reconcile --supplier X <inputs…> --out report.csv`: the figures the input files should have put on
// each account (only lines the journals record as succeeded or already there), against the service's
// reconciliation endpoint; one CSV row per account with expected, found and difference per figure.
// Decimal arithmetic throughout: sums are exact whatever their digits. The service's rows are checked
// (reconciliation-row.ts) before any figure of theirs is read.
import type Decimal from 'decimal.js';
import { closeSync, existsSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import {
  FIGURES,
  transactionAmountFigure,
  transactionCountFigure,
  type TransactionType,
} from '../shared/reconciliation/reconciliation.figures';
import { csvCell } from '../shared/staff/csv';
import { TRANSACTION_TYPES } from '../shared/transactions/transaction.schemas';
import { backoffMs } from './batch-sender';
import { apiKey, serviceUrl, type ParsedArgs } from './cli-args';
import { EXIT, FatalError, UsageError } from './client-errors';
import { readEntries, scanFile, type InputEntry } from './input-reader';
import type { Kind } from './item-kinds';
import { LineSet } from './line-set';
import { openPrivate } from './private-files';
import { Exact, parseReconciliationRow, type Figures } from './reconciliation-row';
import { readRun, type RunMeta } from './run-journal';
import { runsDirOf } from './send-command';
import { boundedLines, readBounded, serviceFetch } from './service-fetch';
import { jsonLine, oneLine, printable, writeOut } from './terminal-text';
import { TokenSource } from './token-source';

const zero = new Exact(0);
/** A row holds two account numbers and a score of figures: well under a kilobyte. */
const MAX_ROW_CHARS = 64 * 1024;

export async function reconcileCommand({ positionals, values }: ParsedArgs): Promise<number> {
  const supplier = values.supplier;
  if (!supplier || supplier.length > 128 || !values.out || positionals.length === 0) {
    throw new UsageError(
      'reconcile takes --supplier CODE, --out FILE and at least one input file or journal directory',
    );
  }
  const baseUrl = serviceUrl(values);
  const tokens = new TokenSource(baseUrl, apiKey(values), serviceFetch);
  const expected = new Map<string, Figures>();
  for (const input of await inputsOf(positionals, runsDirOf(values))) {
    for await (const entry of readEntries(input.meta.input, input.meta.format)) {
      if (!input.succeeded.has(entry.line) || entry.account?.import_supplier !== supplier) continue;
      addExpected(expected, input.meta.kind, entry);
    }
  }
  const summary = await compare(expected, await fetchReconciliation(baseUrl, supplier, tokens), values.out);
  writeOut(values.json ? jsonLine({ event: 'summary', ...summary }) : formatSummary(summary, values.out));
  return summary.accounts_differing === 0 ? EXIT.ok : EXIT.itemsFailed;
}

interface ReconcileInput {
  meta: RunMeta;
  succeeded: LineSet;
}

/** Each argument is a journal directory, or an input file whose runs are looked up in the runs directory. */
async function inputsOf(args: string[], runsDir: string): Promise<ReconcileInput[]> {
  const byInput = new Map<string, ReconcileInput>();
  for (const arg of args.slice(0, 1000)) {
    const dirs = existsSync(path.join(arg, 'run.json')) ? [arg] : await runsOfFile(arg, runsDir);
    if (dirs.length === 0) throw new UsageError(`no run of ${arg} in ${runsDir} (pass its journal directory instead)`);
    for (const dir of dirs) {
      const run = await readRun(path.resolve(dir));
      // A dry run stored nothing, so nothing of it is expected.
      if (run.meta.options.dry_run) continue;
      const input = byInput.get(run.meta.input) ?? { meta: run.meta, succeeded: new LineSet() };
      if (input.meta.kind !== run.meta.kind)
        throw new UsageError(`${run.meta.input} was sent both as ${input.meta.kind} and as ${run.meta.kind}`);
      // A result line whose request the journal never closed is one a crash cut short: resume decides it.
      for await (const r of run.succeeded) if (run.finals.has(r.line)) input.succeeded.add(r.line);
      byInput.set(run.meta.input, input);
    }
  }
  return [...byInput.values()];
}

async function runsOfFile(file: string, runsDir: string): Promise<string[]> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`no such file or journal directory: ${file}`);
  const { checksum } = await scanFile(file);
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir)
    .map((name) => path.join(runsDir, name))
    .filter((dir) => existsSync(path.join(dir, 'run.json')))
    .filter((dir) => {
      const meta = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as RunMeta;
      return meta.input === path.resolve(file) && meta.checksum === checksum;
    });
}

function addExpected(expected: Map<string, Figures>, kind: Kind, entry: InputEntry): void {
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

async function fetchReconciliation(
  baseUrl: string,
  supplier: string,
  tokens: TokenSource,
): Promise<AsyncIterable<string>> {
  const url = `${baseUrl}/v1/data-import/reconciliation/${encodeURIComponent(supplier)}/`;
  for (let attempt = 0; attempt < 8; attempt++) {
    const token = await tokens.token();
    const res = await serviceFetch(url, {
      headers: { authorization: `Token ${token}`, accept: 'application/x-ndjson' },
    }).catch((err: unknown) => {
      // A refused redirect stops; a network failure is tried again.
      if (err instanceof FatalError) throw err;
      return undefined;
    });
    if (res?.ok && res.body) return boundedLines(res, MAX_ROW_CHARS);
    const text = res ? ((await readBounded(res, 64 * 1024)) ?? '') : '';
    if (res?.status === 401) await tokens.renew(token);
    else if (res && res.status < 500 && res.status !== 429)
      throw new UsageError(`the service answered ${res.status}: ${oneLine(text, 300)}`);
    else await new Promise((r) => setTimeout(r, backoffMs(attempt)));
  }
  throw new UsageError('the reconciliation endpoint did not answer after 8 attempts');
}

interface ReconcileSummary {
  supplier?: string;
  accounts: number;
  accounts_differing: number;
  totals: Record<string, { expected: string; found: string; difference: string }>;
}

async function compare(
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

function formatSummary(s: ReconcileSummary, out: string): string {
  const lines = [`reconciled ${s.accounts} accounts: ${s.accounts_differing} differ (report: ${out})`];
  for (const [name, t] of Object.entries(s.totals)) {
    if (t.expected !== '0' || t.found !== '0')
      lines.push(`  ${name}: expected ${t.expected}, found ${t.found}, difference ${t.difference}`);
  }
  return lines.join('\n') + '\n';
}
