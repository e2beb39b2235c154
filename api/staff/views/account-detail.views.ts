// Parts of the support page's account view: the account's refused writes (from the run ledger, one row
// per field error), its account-creation process (status, latest error, event history) and the
// bounded "latest …" tables they and the imported data are shown in.
import type { Prisma } from '../../../shared/generated/prisma/client';
import { formatDateTime } from '../../../shared/platform/fields';
import type { RefusalRow } from '../../../shared/staff/support-runs.repository';
import { LATEST_EVENTS, LATEST_REJECTIONS } from '../../../shared/staff/support.schemas';
import { html, type SafeHtml } from './html';

/** Longest event data or error shown in a cell: what a person reads, not a dump. */
const MAX_SHOWN_JSON = 400;

export const when = (d: Date | null | undefined) => (d ? formatDateTime(new Date(d)) : '—');

export function latestTable(title: string, columns: string[], rows: (string | SafeHtml)[][]): SafeHtml {
  if (rows.length === 0) return html`<h3>${title}</h3><p class="muted">None.</p>`;
  return html`<table>
  <caption>${title} (newest first)</caption>
  <thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
  <tbody>${rows.map((r) => html`<tr>${r.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody>
</table>`;
}

/** Why the account's writes were refused: each field error's own code at its attr, with the client's run. */
export function rejectionsTable(rows: RefusalRow[]): SafeHtml {
  return latestTable(
    `Refused writes (latest ${LATEST_REJECTIONS} field errors)`,
    ['When', 'Endpoint', 'Status', 'Code', 'Field', 'Detail', 'Run id', 'Request id'],
    rows.map((r) => [
      when(r.recorded_at),
      r.endpoint,
      String(r.http_status),
      r.code ?? '—',
      r.attr ?? '—',
      r.detail ?? '—',
      r.run_id ?? '—',
      r.request_id,
    ]),
  );
}

function shownJson(value: Prisma.JsonValue | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const text = JSON.stringify(value);
  return text.length > MAX_SHOWN_JSON ? `${text.slice(0, MAX_SHOWN_JSON)}…` : text;
}

interface Creation {
  /** The v2 status (PENDING, IN_PROGRESS, PROCESSED, ERRORED, CANCELLED). */
  creationStatus: string;
  latestError: Prisma.JsonValue | null;
  isDryRun: boolean;
  scheduleWindowStart: Date | null;
  scheduleWindowEnd: Date | null;
  modifiedAt: Date;
  events: { event: string; occurredAt: Date; data: Prisma.JsonValue | null }[];
}

/** The account-creation process: its status, latest event and error, and its event history. */
export function creationSection(c: Creation): SafeHtml {
  const latest = c.events[0];
  return html`<section class="panel" aria-labelledby="account-creation">
  <h2 id="account-creation">Account creation</h2>
  <dl class="facts">
    <dt>Creation status</dt><dd>${c.creationStatus}</dd>
    <dt>Dry run</dt><dd>${c.isDryRun ? 'yes' : 'no'}</dd>
    <dt>Schedule window</dt><dd>${c.scheduleWindowStart ? `${when(c.scheduleWindowStart)} to ${when(c.scheduleWindowEnd)}` : '—'}</dd>
    <dt>Latest event</dt><dd>${latest ? `${latest.event} at ${when(latest.occurredAt)}` : '—'}</dd>
    <dt>Latest error</dt><dd>${shownJson(c.latestError)}</dd>
    <dt>Modified at</dt><dd>${when(c.modifiedAt)}</dd>
  </dl>
</section>
${latestTable(
  `Creation events (latest ${LATEST_EVENTS})`,
  ['When', 'Event', 'Data'],
  c.events.map((e) => [when(e.occurredAt), e.event, shownJson(e.data)]),
)}`;
}
