// GET /v1/data-import/runs/<run_id>/: what a client's run (its Data-Import-Run-Id) did, from the run
// ledger: its requests, its items by outcome and by code, and the accounts it touched, a page at a time.
// Only the caller's organisation's rows: another organisation's run answers as an unknown one.
import type { Database } from '../platform/db';
import { NotFoundError, ValidationError } from '../platform/errors';
import { formatDateTime } from '../platform/fields';
import { OUTCOMES, type Outcome } from '../runs/ledger-entries';
import * as repo from './run.repository';
import { runProgress } from './run-progress.use-cases';

/** Accounts per page of a run's answer. */
export const RUN_ACCOUNTS_PAGE = 100;
const MAX_RUN_ID = 64;
const MAX_CURSOR = 1024;
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

export async function getRun(db: Database, organisationId: number, runId: string, query: { accounts_after?: unknown }) {
  checkRunId(runId);
  const after = parseCursor(query.accounts_after);
  const [codes, span, accountCount, accounts] = await Promise.all([
    repo.countByOutcomeAndCode(db.pool, organisationId, runId),
    repo.requestSpan(db.pool, organisationId, runId),
    repo.countAccounts(db.pool, organisationId, runId),
    repo.pageAccounts(db.pool, organisationId, runId, after, RUN_ACCOUNTS_PAGE),
  ]);
  if (span.requests === 0) {
    throw new NotFoundError('run_not_found', 'No request of this organisation carried this Data-Import-Run-Id.');
  }
  const items = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const row of codes) items[row.outcome as Outcome] = (items[row.outcome as Outcome] ?? 0) + row.items;
  const progress = await runProgress(db, organisationId, runId, items, new Date(span.last!.recorded_at));
  const page = accounts.slice(0, RUN_ACCOUNTS_PAGE);
  const last = page.at(-1);
  return {
    run_id: runId,
    requests: span.requests,
    first_request: requestOf(span.first!),
    last_request: requestOf(span.last!),
    items,
    by_code: codes.filter((r) => r.code !== null).map((r) => ({ ...r, code: r.code! })),
    progress,
    accounts: {
      count: accountCount,
      results: page,
      next_cursor:
        accounts.length > RUN_ACCOUNTS_PAGE && last
          ? Buffer.from(JSON.stringify([last.import_supplier, last.external_account_number])).toString('base64url')
          : null,
    },
  };
}

function requestOf(r: repo.RequestRow) {
  return { ...r, recorded_at: formatDateTime(new Date(r.recorded_at)) };
}

/** As the Data-Import-Run-Id header is checked (shared/requests/request-headers.ts). */
function checkRunId(runId: string): void {
  if (runId.length === 0 || runId.length > MAX_RUN_ID || !PRINTABLE_ASCII.test(runId)) {
    throw ValidationError.single(
      'run_id',
      'invalid_run_id',
      `A run id is 1 to ${MAX_RUN_ID} printable ASCII characters.`,
    );
  }
}

function parseCursor(value: unknown): [string, string] | undefined {
  if (value === undefined) return undefined;
  const refuse = () =>
    ValidationError.single(
      'accounts_after',
      'invalid_cursor',
      'accounts_after must be a next_cursor this endpoint answered.',
    );
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_CURSOR) throw refuse();
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((p) => typeof p === 'string'))
      return parsed as [string, string];
  } catch {
    // refused below
  }
  throw refuse();
}
