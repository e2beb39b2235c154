// The sign-off pack's HTML: one self-contained page (no script, no outside resource) with the totals,
// the failures by code, the accounts never created, the payment instructions' ownership status, the
// runs and, last, one row per account. Every text from a file, a journal or the service goes through
// `esc`, so an account number or a detail holding markup shows as text.
import { describeAdded } from '../reconcile-report';
import { failureText, type FailureGroup } from './report-failures';
import type { RunRow } from './report-runs';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const esc = (value: string | number | boolean | undefined): string =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);

const cells = (tag: 'td' | 'th', values: (string | number | boolean | undefined)[]) =>
  values.map((v) => `<${tag}>${esc(v)}</${tag}>`).join('');
export const tableRow = (values: (string | number | boolean | undefined)[], cls?: string) =>
  `<tr${cls ? ` class="${esc(cls)}"` : ''}>${cells('td', values)}</tr>\n`;
const table = (headers: string[], rows: string) =>
  `<table><thead><tr>${cells('th', headers)}</tr></thead><tbody>\n${rows}</tbody></table>\n`;

const ACCOUNT_HEADERS = [
  'account',
  'platform number',
  'status',
  'created',
  'opening balance',
  'transactions',
  'notes',
  'statements',
  'payment instruction',
  'outstanding failed lines',
  'differences (expected → found)',
];

export interface PackSummary {
  supplier: string;
  generatedAt: string;
  accounts: number;
  differing: number;
  missing: number;
  totals: { name: string; expected: string; found: string; difference: string }[];
  /** What the service added itself, in total (reconcile-report.ts, AddedTotals): not compared. */
  addedByService: Record<string, string>;
  outstanding: FailureGroup[];
  resolved: FailureGroup[];
  dryRun: FailureGroup[];
  neverCreated: { account: string; reason: string }[];
  neverCreatedCount: number;
  ownership: { active: number; refused: { account: string; code: string }[] };
  runs: RunRow[];
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#111}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#eee}.differs td,.missing td{background:#fde2e2}.verdict{font-size:1.2em;font-weight:bold}
.ok{color:#064}.bad{color:#a00}code{font-size:.95em}.dry td{color:#555;font-style:italic}
td{white-space:pre-line}@media print{body{margin:0;font-size:11px}}`;

/** "1 account", "2 accounts". */
export const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

export const linesOf = (groups: FailureGroup[]) => groups.reduce((n, f) => n + f.count, 0);

/** Nothing outstanding, nothing differs, every account sent was created: the pack can be signed. */
export const isClean = (s: PackSummary) => s.differing === 0 && s.outstanding.length === 0 && s.neverCreatedCount === 0;

function verdict(s: PackSummary): string {
  if (isClean(s)) {
    const resolved = linesOf(s.resolved);
    const fixed = resolved ? ` (${counted(resolved, 'failed line')} resolved by a later run)` : '';
    return `<p class="verdict ok">Every account matches its files; no failure is outstanding${esc(fixed)}.</p>`;
  }
  const parts = [
    `${s.differing} of ${counted(s.accounts, 'account')} differ`,
    `${counted(linesOf(s.outstanding), 'failed line')} outstanding`,
    `${counted(s.neverCreatedCount, 'account')} never created`,
  ];
  return `<p class="verdict bad">${esc(parts.join(', '))}.</p>`;
}

/** One example per line: where it is, whose it is, and the failure once ("attr: detail"). */
const example = (e: FailureGroup['examples'][number]) =>
  `${e.kind} ${e.input} line ${e.line}${e.account ? `, account ${e.account}` : ''}: ${failureText(e.attr, e.detail)}`;

function failureTable(id: string, title: string, groups: FailureGroup[], none: string): string {
  const rows = groups.map((f) => tableRow([f.code, f.count, f.examples.map(example).join('\n')])).join('');
  const body = groups.length ? table(['code', 'lines', 'examples'], rows) : `<p>${esc(none)}</p>`;
  return `<h2 id="${id}">${esc(title)} (${esc(counted(linesOf(groups), 'line'))})</h2>\n${body}`;
}

function runsTable(runs: RunRow[]): string {
  const rows = runs
    .map((r) =>
      tableRow(
        [
          r.meta.run_id,
          r.meta.kind + (r.meta.options.dry_run ? ' (dry run)' : ''),
          r.meta.input,
          r.started,
          r.lastWrite,
          r.seconds,
          r.succeeded,
          r.skipped,
          r.failed,
          r.unprocessed,
        ],
        r.meta.options.dry_run ? 'dry' : undefined,
      ),
    )
    .join('');
  const headers = ['run', 'kind', 'input', 'started', 'last write', 'seconds', 'succeeded', 'already there'];
  return table([...headers, 'failed', 'unprocessed'], rows);
}

/** Everything before the per-account table. */
export function packHead(s: PackSummary): string {
  const totals = s.totals
    .filter((t) => t.expected !== '0' || t.found !== '0')
    .map((t) => tableRow([t.name, t.expected, t.found, t.difference], t.difference === '0' ? undefined : 'differs'))
    .join('');
  const never = s.neverCreated.map((n) => tableRow([n.account, n.reason])).join('');
  const refused = s.ownership.refused.map((r) => tableRow([r.account, r.code])).join('');
  const added = describeAdded(s.addedByService);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Migration sign-off: ${esc(s.supplier)}</title>
<style>${STYLE}</style></head><body>
<h1>Migration sign-off: <code>${esc(s.supplier)}</code></h1>
<p>Generated ${esc(s.generatedAt)} from ${esc(counted(s.runs.length, 'run'))} and the service's reconciliation.</p>
${verdict(s)}
<h2 id="totals">Reconciliation in total (${esc(counted(s.accounts, 'account'))})</h2>
${table(['figure', 'expected (files)', 'found (service)', 'difference'], totals)}
${added ? `<p id="added-by-service">${esc(`${added[0]!.toUpperCase()}${added.slice(1)}.`)}</p>` : ''}
${failureTable('outstanding', 'Outstanding failures, by code', s.outstanding, 'None: every failed item was stored by a later run.')}
${failureTable('resolved', 'Resolved failures: the same item succeeded in a later run', s.resolved, 'None.')}
${failureTable('dry-runs', 'Dry-run findings (rehearsals: nothing stored, not failures)', s.dryRun, 'None.')}
<h2 id="never-created">Accounts never created (${esc(s.neverCreatedCount)})</h2>
${s.neverCreatedCount ? table(['account', 'last reason'], never) : '<p>None.</p>'}
<h2 id="payment-instructions">Payment instructions: ownership</h2>
<p>${esc(counted(s.ownership.active, 'account'))} with an active payment instruction; ${esc(s.ownership.refused.length)} refused for whose card it is.</p>
${s.ownership.refused.length ? table(['account', 'refusal'], refused) : ''}
<h2 id="runs">Runs</h2>
${runsTable(s.runs)}
<h2 id="accounts">Per account</h2>
<table><thead><tr>${cells('th', ACCOUNT_HEADERS)}</tr></thead><tbody>
`;
}

export const PACK_TAIL = '</tbody></table>\n</body></html>\n';
