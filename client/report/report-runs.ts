// What the journals in the runs directory say about one supplier: every run with its timings and
// counts, its failures sorted into outstanding, resolved and dry-run findings (report-failures.ts),
// the outstanding failures per account, the accounts sent with `send accounts` and the payment
// instructions refused for whose card it is. Read only: a run still going is read as it stands.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { readMeta, readRecords, type ResultRecord, type RunMeta } from '../run-journal';
import {
  failureOf,
  groupFailures,
  MAX_TRACKED_FAILURES,
  resolveFailures,
  type Failure,
  type FailureGroup,
} from './report-failures';

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

/** The codes that refuse a payment instruction for whose card it is (docs/api.md, "Ownership"). */
const OWNERSHIP_CODES = new Set([
  'payment_method_customer_mismatch',
  'payment_method_customer_of_another_organisation',
  'stripe_customer_not_recorded',
]);

export interface RunsReport {
  runs: RunRow[];
  /** Failed lines whose item no later run stored: what stands between the pack and a sign-off. */
  outstanding: FailureGroup[];
  /** Failed lines whose item succeeded in the same or a later run (a fix file, a re-send). */
  resolved: FailureGroup[];
  /** Refusals of dry runs: a rehearsal's findings, never failures (nothing was to be stored). */
  dryRun: FailureGroup[];
  /** Outstanding failed lines per account (the supplier's only), with their codes. */
  failedByAccount: Map<string, { count: number; codes: Set<string> }>;
  /** Accounts a `send accounts` run sent, with the last failure code when one failed. */
  accountsSent: Map<string, string | undefined>;
  /** Per account, the outstanding ownership refusal of its payment instruction, if any. */
  ownershipRefused: Map<string, string>;
}

const MAX_RUNS = 10_000;

function runDirs(runsDir: string): string[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir)
    .slice(0, MAX_RUNS)
    .map((name) => path.join(runsDir, name))
    .filter((dir) => existsSync(path.join(dir, 'run.json')));
}

/** The failures read so far: real runs' one by one (to be matched), dry runs' apart. */
class FailureList {
  readonly real: Failure[] = [];
  readonly dry: Failure[] = [];
  /** Past MAX_TRACKED_FAILURES, counted by code only (and so outstanding). */
  readonly uncounted = new Map<string, number>();

  add(dir: string, meta: RunMeta, r: ResultRecord): void {
    const list = meta.options.dry_run ? this.dry : this.real;
    if (list.length < MAX_TRACKED_FAILURES) list.push(failureOf(dir, meta, r));
    else if (!meta.options.dry_run) {
      const code = failureOf(dir, meta, r).code;
      this.uncounted.set(code, (this.uncounted.get(code) ?? 0) + 1);
    }
  }
}

export async function readRunsReport(runsDir: string, supplier: string): Promise<RunsReport> {
  const report: RunsReport = {
    runs: [],
    outstanding: [],
    resolved: [],
    dryRun: [],
    failedByAccount: new Map(),
    accountsSent: new Map(),
    ownershipRefused: new Map(),
  };
  const failures = new FailureList();
  for (const dir of runDirs(runsDir)) {
    const meta = readMeta(dir);
    const row = await readRun(dir, meta, supplier, (r) => failures.add(dir, meta, r));
    if (row) report.runs.push(row);
  }
  report.runs.sort((a, b) => a.started.localeCompare(b.started));
  await resolveFailures(failures.real, report.runs);
  const outstanding = failures.real.filter((f) => !f.resolved);
  report.outstanding = groupFailures(outstanding, failures.uncounted);
  report.resolved = groupFailures(failures.real.filter((f) => f.resolved));
  report.dryRun = groupFailures(failures.dry);
  for (const f of outstanding) addOutstanding(report, f);
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

function addOutstanding(report: RunsReport, f: Failure): void {
  if (!f.account) return;
  const mine = report.failedByAccount.get(f.account) ?? { count: 0, codes: new Set<string>() };
  mine.count++;
  if (mine.codes.size < 20) mine.codes.add(f.code);
  report.failedByAccount.set(f.account, mine);
  if (OWNERSHIP_CODES.has(f.code)) report.ownershipRefused.set(f.account, f.code);
  if (f.kind === 'accounts') report.accountsSent.set(f.account, f.code);
}

const text = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : '');

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
