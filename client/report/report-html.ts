// The sign-off pack's HTML: one self-contained page (no script, no outside resource) with the totals,
// the failures by code, the accounts never created, the payment instructions' ownership status, the
// runs and, last, one row per account. Every text from a file, a journal or the service goes through
// `esc`, so an account number or a detail holding markup shows as text.
import type { FailureGroup, RunRow } from './report-runs';

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
  'failed lines',
  'differences (expected → found)',
];

export interface PackSummary {
  supplier: string;
  generatedAt: string;
  accounts: number;
  differing: number;
  missing: number;
  totals: { name: string; expected: string; found: string; difference: string }[];
  failures: FailureGroup[];
  neverCreated: { account: string; reason: string }[];
  neverCreatedCount: number;
  ownership: { active: number; refused: { account: string; code: string }[] };
  runs: RunRow[];
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#111}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#eee}.differs td,.missing td{background:#fde2e2}.verdict{font-size:1.2em;font-weight:bold}
.ok{color:#064}.bad{color:#a00}code{font-size:.95em}`;

/** Everything before the per-account table. */
export function packHead(s: PackSummary): string {
  const ok = s.differing === 0 && s.failures.length === 0 && s.neverCreatedCount === 0;
  const verdict = ok
    ? `<p class="verdict ok">Every account matches its files; no line failed.</p>`
    : `<p class="verdict bad">${esc(s.differing)} of ${esc(s.accounts)} accounts differ, ` +
      `${esc(s.failures.reduce((n, f) => n + f.count, 0))} lines failed, ` +
      `${esc(s.neverCreatedCount)} accounts were never created.</p>`;
  const totals = s.totals
    .filter((t) => t.expected !== '0' || t.found !== '0')
    .map((t) => tableRow([t.name, t.expected, t.found, t.difference], t.difference === '0' ? undefined : 'differs'))
    .join('');
  const failures = s.failures
    .map((f) =>
      tableRow([
        f.code,
        f.count,
        f.examples.map((e) => `${e.kind} ${e.input}:${e.line} ${e.account} ${e.attr}: ${e.detail}`).join('\n'),
      ]),
    )
    .join('');
  const never = s.neverCreated.map((n) => tableRow([n.account, n.reason])).join('');
  const refused = s.ownership.refused.map((r) => tableRow([r.account, r.code])).join('');
  const runs = s.runs
    .map((r) =>
      tableRow([
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
      ]),
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Migration sign-off: ${esc(s.supplier)}</title>
<style>${STYLE}</style></head><body>
<h1>Migration sign-off: <code>${esc(s.supplier)}</code></h1>
<p>Generated ${esc(s.generatedAt)} from ${esc(s.runs.length)} runs and the service's reconciliation.</p>
${verdict}
<h2 id="totals">Reconciliation in total (${esc(s.accounts)} accounts)</h2>
${table(['figure', 'expected (files)', 'found (service)', 'difference'], totals)}
<h2 id="failures">Failures across every run, by code</h2>
${s.failures.length ? table(['code', 'lines', 'examples'], failures) : '<p>None.</p>'}
<h2 id="never-created">Accounts never created (${esc(s.neverCreatedCount)})</h2>
${s.neverCreatedCount ? table(['account', 'last reason'], never) : '<p>None.</p>'}
<h2 id="payment-instructions">Payment instructions: ownership</h2>
<p>${esc(s.ownership.active)} accounts have an active payment instruction; ${esc(s.ownership.refused.length)} were refused for whose card it is.</p>
${s.ownership.refused.length ? table(['account', 'refusal'], refused) : ''}
<h2 id="runs">Runs</h2>
${table(['run', 'kind', 'input', 'started', 'last write', 'seconds', 'succeeded', 'already there', 'failed', 'unprocessed'], runs)}
<h2 id="accounts">Per account</h2>
<table><thead><tr>${cells('th', ACCOUNT_HEADERS)}</tr></thead><tbody>
`;
}

export const PACK_TAIL = '</tbody></table>\n</body></html>\n';
