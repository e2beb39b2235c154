// The support page: suppliers, one supplier's progress, the pending and imported lists, one account.
import type { Prisma } from '../../../shared/generated/prisma/client';
import { formatMoney } from '../../../shared/platform/fields';
import type { SupplierCounts } from '../../../shared/staff/support.repository';
import type { SupplierRunRow } from '../../../shared/staff/support-runs.repository';
import type { AccountListName } from '../../../shared/staff/support.schemas';
import type { accountsPage, findAccount } from '../../../shared/staff/support.use-cases';
import { creationSection, latestTable, rejectionsTable, when } from './account-detail.views';
import { href, html, segment, type SafeHtml } from './html';
import { runsSection } from './runs.views';
import { page, type PageContext } from './layout';

interface Supplier {
  code: string;
  status: string;
}

const supplierPath = (code: string) => `/support/suppliers/${segment(code)}/`;
const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : '—');
const LIST_TITLE: Record<AccountListName, string> = { pending: 'Pending accounts', imported: 'Imported accounts' };

export function suppliersPage(ctx: PageContext, suppliers: Supplier[]): string {
  return page(
    'Support',
    ctx,
    html`<h1>Import suppliers</h1>
<p>Choose an import supplier to see its migration progress, its account lists and to search an account.</p>
${
  suppliers.length === 0
    ? html`<p class="message info">No import suppliers exist yet.</p>`
    : html`<table>
  <caption>All import suppliers</caption>
  <thead><tr><th scope="col">Supplier</th><th scope="col">Migration status</th></tr></thead>
  <tbody>
    ${suppliers.map((s) => html`<tr><td><a href="${supplierPath(s.code)}">${s.code}</a></td><td>${s.status}</td></tr>`)}
  </tbody>
</table>`
}`,
  );
}

function searchForm(code: string, number = ''): SafeHtml {
  return html`<form method="get" action="${supplierPath(code)}account" class="inline panel" role="search" aria-label="Account search">
  <div>
    <label for="number">External account number</label>
    <input type="search" id="number" name="number" value="${number}" required maxlength="128" autocomplete="off" spellcheck="false">
  </div>
  <button type="submit">Search</button>
</form>`;
}

function breadcrumb(code: string): SafeHtml {
  return html`<p><a href="/support/">All suppliers</a> › <a href="${supplierPath(code)}">${code}</a></p>`;
}

export function supplierPage(
  ctx: PageContext,
  o: { supplier: Supplier; counts: SupplierCounts },
  runs: SupplierRunRow[],
): string {
  const { supplier: s, counts: c } = o;
  const base = supplierPath(s.code);
  return page(
    `Supplier ${s.code}`,
    ctx,
    html`<p><a href="/support/">All suppliers</a></p>
<h1>Supplier ${s.code}</h1>
<p>Migration status: <strong>${s.status}</strong></p>
<h2>Search an account</h2>
${searchForm(s.code)}
<h2>Progress</h2>
<ul class="counts">
  <li><span class="n">${c.pending}</span> pending (no platform account yet)</li>
  <li><span class="n">${c.in_progress}</span> in progress</li>
  <li><span class="n">${c.staged}</span> staged, not started</li>
  <li><span class="n">${c.failed}</span> failed attempts</li>
  <li><span class="n">${c.imported}</span> imported</li>
</ul>
<h2>Lists</h2>
<ul>
  <li><a href="${href(`${base}accounts/`, { list: 'pending' })}">Pending accounts</a>
    (<a href="${href(`${base}accounts.csv`, { list: 'pending' })}">download CSV</a>)</li>
  <li><a href="${href(`${base}accounts/`, { list: 'imported' })}">Imported accounts</a>
    (<a href="${href(`${base}accounts.csv`, { list: 'imported' })}">download CSV</a>)</li>
  <li>All accounts: <a href="${href(`${base}accounts.csv`, { list: 'all' })}">download CSV</a></li>
</ul>
${runsSection(s.code, runs)}`,
  );
}

export function accountsListPage(ctx: PageContext, p: Awaited<ReturnType<typeof accountsPage>>): string {
  const base = `${supplierPath(p.supplier.code)}accounts/`;
  const title = LIST_TITLE[p.list];
  const pager = html`<nav class="pager" aria-label="Pages">
  <a href="${href(base, { list: p.list })}">First page</a>
  ${p.previous !== undefined ? html`<a href="${href(base, { list: p.list, before: p.previous })}">Previous page</a>` : ''}
  ${p.next !== undefined ? html`<a href="${href(base, { list: p.list, after: p.next })}">Next page</a>` : ''}
</nav>`;
  return page(
    `${title} · ${p.supplier.code}`,
    ctx,
    html`${breadcrumb(p.supplier.code)}
<h1>${title} of ${p.supplier.code}</h1>
<p><a href="${href(`${supplierPath(p.supplier.code)}accounts.csv`, { list: p.list })}">Download the whole list as CSV</a></p>
${
  p.rows.length === 0
    ? html`<p class="message info">No accounts on this page.</p>`
    : html`<table>
  <caption>${title}, by external account number</caption>
  <thead><tr>
    <th scope="col">External account number</th><th scope="col">Status</th><th scope="col">State</th>
    <th scope="col">Platform account number</th><th scope="col">Staged at</th><th scope="col">Account created at</th>
  </tr></thead>
  <tbody>
  ${p.rows.map(
    (r) => html`<tr>
    <td><a href="${href(`${supplierPath(p.supplier.code)}account`, { number: r.external_account_number })}">${r.external_account_number}</a></td>
    <td>${r.status}</td><td>${r.state.toLowerCase().replace('_', ' ')}</td>
    <td>${r.platform_account_number ?? '—'}</td><td>${when(r.staged_at)}</td><td>${when(r.account_created_at)}</td>
  </tr>`,
  )}
  </tbody>
</table>`
}
${pager}`,
  );
}

type Found = NonNullable<Awaited<ReturnType<typeof findAccount>>['found']>;
type Account = NonNullable<Found['account']>;

export function accountPage(ctx: PageContext, r: Awaited<ReturnType<typeof findAccount>>): string {
  const code = r.supplier.code;
  if (!r.found) {
    return page(
      `Account not found · ${code}`,
      ctx,
      html`${breadcrumb(code)}
<h1>Account search</h1>
<p class="message error" role="alert">No account with external account number <strong>${r.number}</strong> under ${code}.</p>
${searchForm(code, r.number)}
${r.rejections.length > 0 ? html`<p class="message info">It was never staged: these refusals named it.</p>${rejectionsTable(r.rejections)}` : ''}`,
    );
  }
  const f = r.found;
  return page(
    `Account ${f.externalAccountNumber} · ${code}`,
    ctx,
    html`${breadcrumb(code)}
<h1>Account ${f.externalAccountNumber}</h1>
${searchForm(code, r.number)}
<section class="panel" aria-labelledby="account-facts">
  <h2 id="account-facts">Import status</h2>
  <dl class="facts">
    <dt>Import supplier</dt><dd>${code}</dd>
    <dt>External account number</dt><dd>${f.externalAccountNumber}</dd>
    <dt>Status</dt><dd>${f.status}</dd>
    <dt>State</dt><dd>${f.state.toLowerCase().replace('_', ' ')}</dd>
    <dt>Platform account number</dt><dd>${f.account?.platformAccountNumber ?? '—'}</dd>
    <dt>Staged at</dt><dd>${when(f.stagedAt)}</dd>
    <dt>Account created at</dt><dd>${when(f.account?.createdAt)}</dd>
  </dl>
</section>
${creationSection(f)}
${
  f.account
    ? importedData(f.account)
    : html`<p class="message info">No platform account yet, so nothing can have been imported onto it.</p>`
}
${rejectionsTable(f.rejections)}`,
  );
}

function importedData(a: Account): SafeHtml {
  const n = a._count;
  return html`<h2>Imported data</h2>
<ul class="counts">
  <li><span class="n">${n.notes}</span> notes</li>
  <li><span class="n">${n.transactions}</span> transactions</li>
  <li><span class="n">${n.statements}</span> historical statements</li>
  <li><span class="n">${n.paymentInstructions}</span> payment instructions</li>
</ul>
${latestTable(
  'Latest notes',
  ['Created at', 'Pinned', 'Body', 'Documents'],
  a.notes.map((x) => [
    when(x.createdAt),
    x.isPinned ? 'yes' : 'no',
    html`<span class="body-text">${x.body ?? '—'}</span>`,
    documentCount(x.documents),
  ]),
)}
${latestTable(
  'Latest transactions',
  ['Transaction id', 'Date', 'Type', 'Amount'],
  a.transactions.map((t) => [t.transactionId, day(t.transactionDate), t.type, formatMoney(t.amount)]),
)}
${latestTable(
  'Latest historical statements',
  ['Statement id', 'Period', 'Issued', 'Gross amount'],
  a.statements.map((s) => [
    s.statementId,
    `${day(s.billPeriodFromDate)} to ${day(s.billPeriodToDate)}`,
    day(s.issuedDate),
    s.grossAmount?.toString() ?? '—',
  ]),
)}
${latestTable(
  'Payment instructions',
  ['Vendor', 'Type', 'Reference', 'Active', 'Created at'],
  a.paymentInstructions.map((p) => [p.vendor, p.type, p.reference, p.isActive ? 'yes' : 'no', when(p.createdAt)]),
)}`;
}

function documentCount(documents: Prisma.JsonValue): string {
  return Array.isArray(documents) ? String(documents.length) : '0';
}
