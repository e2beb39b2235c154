// The support page's run-ledger views: a supplier's runs, one run opened, and the supplier's accounts
// with rejections by code (shared/staff/support-runs.use-cases.ts).
import type { SupplierRunRow } from '../../../shared/staff/support-runs.repository';
import {
  REJECTED_ACCOUNTS_SHOWN,
  RUN_REFUSALS,
  SUPPLIER_RUNS,
  type rejectionsByCode,
  type supportRun,
} from '../../../shared/staff/support-runs.use-cases';
import { latestTable, when } from './account-detail.views';
import { href, html, segment, type SafeHtml } from './html';
import { page, type PageContext } from './layout';

const supplierPath = (code: string) => `/support/suppliers/${segment(code)}/`;
const runPath = (code: string, organisationId: number, runId: string) =>
  `${supplierPath(code)}runs/${organisationId}/${segment(runId)}/`;
const rejectionsPath = (code: string) => `${supplierPath(code)}rejections/`;

function breadcrumb(code: string): SafeHtml {
  return html`<p><a href="/support/">All suppliers</a> › <a href="${supplierPath(code)}">${code}</a></p>`;
}

/** The supplier page's runs: the latest by their last write, each a link to the run. */
export function runsSection(code: string, runs: SupplierRunRow[]): SafeHtml {
  const table =
    runs.length === 0
      ? html`<p class="muted">No write for this supplier carried a Data-Import-Run-Id yet.</p>`
      : html`<table>
  <caption>Latest ${SUPPLIER_RUNS} runs (newest first)</caption>
  <thead><tr>
    <th scope="col">Run id</th><th scope="col">Organisation</th><th scope="col">Requests</th><th scope="col">Accounts</th>
    <th scope="col">Written</th><th scope="col">Refused</th><th scope="col">Failed</th><th scope="col">First write</th><th scope="col">Last write</th>
  </tr></thead>
  <tbody>${runs.map(
    (r) => html`<tr><td><a href="${runPath(code, r.organisation_id, r.run_id)}">${r.run_id}</a></td>
    <td>${r.organisation ?? String(r.organisation_id)}</td><td>${r.requests}</td><td>${r.accounts}</td><td>${r.written}</td>
    <td>${r.refused}</td><td>${r.failed}</td><td>${when(r.first_at)}</td><td>${when(r.last_at)}</td></tr>`,
  )}</tbody>
</table>`;
  return html`<h2>Runs</h2>
${table}
<p><a href="${rejectionsPath(code)}">Accounts with rejections, by code</a>
  (<a href="${supplierPath(code)}rejections.csv">download CSV</a>)</p>`;
}

export function runPage(ctx: PageContext, r: Awaited<ReturnType<typeof supportRun>>): string {
  const { run } = r;
  const code = r.supplier.code;
  const items = Object.entries(run.items);
  const next = run.accounts.next_cursor;
  return page(
    `Run ${run.run_id} · ${code}`,
    ctx,
    html`${breadcrumb(code)}
<h1>Run ${run.run_id}</h1>
<dl class="facts">
  <dt>Organisation</dt><dd>${r.organisationId}</dd>
  <dt>Requests</dt><dd>${run.requests}</dd>
  <dt>First request</dt><dd>${run.first_request.recorded_at} ${run.first_request.endpoint} ${run.first_request.http_status}</dd>
  <dt>Last request</dt><dd>${run.last_request.recorded_at} ${run.last_request.endpoint} ${run.last_request.http_status}</dd>
  <dt>Accounts touched</dt><dd>${run.accounts.count}</dd>
  <dt>Progress</dt><dd>${progressLine(run.progress)}</dd>
</dl>
<h2>Items by outcome</h2>
<ul class="counts">${items.map(([outcome, n]) => html`<li><span class="n">${n}</span> ${outcome.replace('_', ' ')}</li>`)}</ul>
${latestTable(
  'Items by code',
  ['Outcome', 'Code', 'Items', 'Errors'],
  run.by_code.map((c) => [c.outcome, c.code, String(c.items), String(c.entries)]),
)}
${latestTable(
  `Refused items (first ${RUN_REFUSALS} field errors)`,
  ['When', 'Account', 'Endpoint', 'Code', 'Field', 'Detail', 'Request id'],
  r.refusals.map((x) => [
    when(x.recorded_at),
    x.external_account_number ?? '—',
    x.endpoint,
    x.code ?? '—',
    x.attr ?? '—',
    x.detail ?? '—',
    x.request_id,
  ]),
)}
${latestTable(
  'Accounts',
  ['Supplier', 'External account number', 'Requests', 'Written', 'Skipped', 'Refused', 'Not written', 'Failed'],
  run.accounts.results.map((a) => [
    a.import_supplier,
    a.external_account_number,
    String(a.requests),
    String(a.written),
    String(a.skipped),
    String(a.refused),
    String(a.not_written),
    String(a.failed),
  ]),
)}
${next ? html`<nav class="pager" aria-label="Pages"><a href="${href(runPath(code, r.organisationId, run.run_id), { accounts_after: next })}">Next accounts</a></nav>` : ''}`,
  );
}

export function rejectionsPage(ctx: PageContext, r: Awaited<ReturnType<typeof rejectionsByCode>>): string {
  const code = r.supplier.code;
  return page(
    `Accounts with rejections · ${code}`,
    ctx,
    html`${breadcrumb(code)}
<h1>Accounts with rejections, by code</h1>
<p>Every account of ${code} that a write was refused for, once per field-level code, from the run ledger.
  <a href="${supplierPath(code)}rejections.csv">Download all as CSV</a>.</p>
${
  r.rows.length === 0
    ? html`<p class="message info">No write for this supplier was refused.</p>`
    : html`<table>
  <caption>Accounts with rejections by code (at most ${REJECTED_ACCOUNTS_SHOWN} here; the CSV has all)</caption>
  <thead><tr>
    <th scope="col">Code</th><th scope="col">External account number</th><th scope="col">Errors</th>
    <th scope="col">Example field</th><th scope="col">Last refused at</th><th scope="col">Last run id</th>
  </tr></thead>
  <tbody>${r.rows.map(
    (
      x,
    ) => html`<tr><td>${x.code}</td><td><a href="${href(`${supplierPath(code)}account`, { number: x.external_account_number })}">${x.external_account_number}</a></td>
    <td>${x.errors}</td><td>${x.example_attr ?? '—'}</td><td>${x.last_refused_at}</td><td>${x.last_run_id ?? '—'}</td></tr>`,
  )}</tbody>
</table>`
}`,
  );
}

/** Percent done, rate and ETA from what the run declared (shared/run-progress/), or why not known. */
function progressLine(p: Awaited<ReturnType<typeof supportRun>>['run']['progress']): string {
  if (!p.declared) return `${p.items_done} items done; the run declared no total`;
  const eta = p.eta_seconds === null ? 'ETA unknown' : p.eta_seconds === 0 ? 'done' : `ETA ${p.eta_seconds} s`;
  const rate = p.rate_per_second === null ? '' : `, ${p.rate_per_second} items/s`;
  return `${p.items_done} of ${p.declared.items} ${p.declared.kind} items (${p.percent}%)${rate}, ${eta}`;
}
