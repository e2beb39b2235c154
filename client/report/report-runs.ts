// What the journals in the runs directory say about one supplier: every run with its timings and
// counts, every failure grouped by code (with a few example lines), the failures per account, the
// accounts sent with `send accounts` and the payment instructions refused for whose card it is.
// Read only: a run still going is read as it stands.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { readMeta, readRecords, type ResultRecord, type RunMeta } from '../run-journal';

export interface RunRow {
  dir: string;
  meta: RunMeta;
  started: string;
  lastWrite: string;
  seconds: number;
  succeeded: number;
  skipped: number;
  failed: number;
  unprocessed: number;
}

interface FailureExample {
  run: string;
  kind: string;
  input: string;
  line: number;
  account: string;
  attr: string;
  detail: string;
}

export interface FailureGroup {
  code: string;
  count: number;
  examples: FailureExample[];
}

/** The codes that refuse a payment instruction for whose card it is (docs/api.md, "Ownership"). */
const OWNERSHIP_CODES = new Set([
  'payment_method_customer_mismatch',
  'payment_method_customer_of_another_organisation',
  'stripe_customer_not_recorded',
]);

export interface RunsReport {
  runs: RunRow[];
  failures: FailureGroup[];
  /** Failed lines per account (the supplier's only), with their codes. */
  failedByAccount: Map<string, { count: number; codes: Set<string> }>;
  /** Accounts a `send accounts` run sent, with the last failure code when one failed. */
  accountsSent: Map<string, string | undefined>;
  /** Per account, the ownership refusal of its payment instruction, if any. */
  ownershipRefused: Map<string, string>;
}

const EXAMPLES_PER_CODE = 3;
const MAX_RUNS = 10_000;
const MAX_CODES = 1000;

function runDirs(runsDir: string): string[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir)
    .slice(0, MAX_RUNS)
    .map((name) => path.join(runsDir, name))
    .filter((dir) => existsSync(path.join(dir, 'run.json')));
}

export async function readRunsReport(runsDir: string, supplier: string): Promise<RunsReport> {
  const report: RunsReport = {
    runs: [],
    failures: [],
    failedByAccount: new Map(),
    accountsSent: new Map(),
    ownershipRefused: new Map(),
  };
  const groups = new Map<string, FailureGroup>();
  for (const dir of runDirs(runsDir)) {
    const meta = readMeta(dir);
    const row = await readRun(dir, meta, supplier, (r) => addFailure(report, groups, meta, dir, r, supplier));
    if (row) report.runs.push(row);
  }
  report.runs.sort((a, b) => a.started.localeCompare(b.started));
  report.failures = [...groups.values()].sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
  return report;
}

/** One run's counts for the supplier (undefined when it holds nothing of the supplier's). */
async function readRun(
  dir: string,
  meta: RunMeta,
  supplier: string,
  onFailure: (r: ResultRecord) => void,
): Promise<RunRow | undefined> {
  const counts = { succeeded: 0, skipped: 0, failed: 0, unprocessed: 0 };
  const ours = (r: ResultRecord) => r.import_supplier === supplier;
  for await (const record of readRecords(path.join(dir, 'succeeded.ndjson'))) {
    const r = record as ResultRecord;
    if (!ours(r)) continue;
    if (/ALREADY_EXISTS$/.test(String(r.status))) counts.skipped++;
    else counts.succeeded++;
  }
  for await (const record of readRecords(path.join(dir, 'failed.ndjson'))) {
    const r = record as ResultRecord;
    if (!ours(r)) continue;
    counts.failed++;
    onFailure(r);
  }
  for await (const record of readRecords(path.join(dir, 'unprocessed.ndjson')))
    if (ours(record as ResultRecord)) counts.unprocessed++;
  if (counts.succeeded + counts.skipped + counts.failed + counts.unprocessed === 0) return undefined;
  const journal = path.join(dir, 'journal.ndjson');
  const lastWrite = existsSync(journal) ? statSync(journal).mtime : new Date(meta.created_at);
  const seconds = Math.max(0, (lastWrite.getTime() - Date.parse(meta.created_at)) / 1000);
  return {
    dir,
    meta,
    started: String(meta.created_at),
    lastWrite: lastWrite.toISOString(),
    seconds: Math.round(seconds * 10) / 10,
    ...counts,
  };
}

const text = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : '');

function addFailure(
  report: RunsReport,
  groups: Map<string, FailureGroup>,
  meta: RunMeta,
  dir: string,
  r: ResultRecord,
  supplier: string,
): void {
  const code = text(r.code, 200) || 'unknown';
  const account = text(r.external_account_number, 128);
  let group = groups.get(code);
  if (!group && groups.size < MAX_CODES) groups.set(code, (group = { code, count: 0, examples: [] }));
  if (group) {
    group.count++;
    if (group.examples.length < EXAMPLES_PER_CODE) {
      group.examples.push({
        run: path.basename(dir),
        kind: meta.kind,
        input: path.basename(meta.input),
        line: r.line,
        account,
        attr: text(r.attr, 500),
        detail: text(r.detail, 500),
      });
    }
  }
  if (r.import_supplier !== supplier || !account) return;
  const mine = report.failedByAccount.get(account) ?? { count: 0, codes: new Set<string>() };
  mine.count++;
  if (mine.codes.size < 20) mine.codes.add(code);
  report.failedByAccount.set(account, mine);
  if (OWNERSHIP_CODES.has(code)) report.ownershipRefused.set(account, code);
  if (meta.kind === 'accounts' && !meta.options.dry_run) report.accountsSent.set(account, code);
}

/** Records every account a (real) accounts run sent successfully, so "never created" can be told apart. */
export async function addAccountsSent(report: RunsReport, supplier: string): Promise<void> {
  for (const run of report.runs) {
    if (run.meta.kind !== 'accounts' || run.meta.options.dry_run) continue;
    for (const file of ['succeeded.ndjson', 'unprocessed.ndjson']) {
      for await (const record of readRecords(path.join(run.dir, file))) {
        const r = record as ResultRecord;
        const account = text(r.external_account_number, 128);
        if (r.import_supplier === supplier && account && !report.accountsSent.has(account))
          report.accountsSent.set(account, file === 'unprocessed.ndjson' ? 'unprocessed' : undefined);
      }
    }
  }
}
