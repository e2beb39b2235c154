// A run's progress as the service knows it: what the client declared it sends when the run started
// (POST runs/<run_id>/declaration/), against the items the run ledger has recorded a final outcome for.
// Percent done, rate (items a second since the run started) and ETA; null where not known yet.
import type { Database } from '../platform/db';
import { formatDateTime } from '../platform/fields';
import { parseOrThrow } from '../platform/validation';
import { parseRunId } from '../requests/request-headers';
import * as repo from './run-declaration.repository';
import { RunDeclarationRequest } from './run-declaration.schemas';

/** Declarations an organisation keeps: one run cannot crowd out another organisation's, and old ones go. */
const MAX_DECLARATIONS_PER_ORGANISATION = 10_000;

export async function declareRun(db: Database, organisationId: number, runId: string, body: unknown) {
  parseRunId(runId);
  const declaration = parseOrThrow(RunDeclarationRequest, body);
  const row = await repo.upsertDeclaration(db.pool, organisationId, runId, declaration);
  await repo.pruneDeclarations(db.pool, organisationId, MAX_DECLARATIONS_PER_ORGANISATION);
  return { run_id: runId, ...declarationOf(row) };
}

function declarationOf(row: repo.DeclarationRow) {
  return { kind: row.kind, items: row.items, files: row.files, declared_at: formatDateTime(row.declared_at) };
}

/** Ledger outcomes that are final for their items; `not_written` items are sent again, so not done. */
const DONE_OUTCOMES = ['written', 'skipped', 'dry_run', 'refused', 'failed'];

export interface RunProgress {
  declared: ReturnType<typeof declarationOf> | null;
  items_done: number;
  percent: number | null;
  rate_per_second: number | null;
  eta_seconds: number | null;
}

/**
 * The progress of a run from its declaration and the ledger's item counts by outcome; `lastAt` is its
 * latest ledger row. A run that declared nothing has only `items_done`.
 */
export async function runProgress(
  db: Database,
  organisationId: number,
  runId: string,
  items: Record<string, number>,
  lastAt: Date,
): Promise<RunProgress> {
  const row = await repo.findDeclaration(db.pool, organisationId, runId);
  const recorded = DONE_OUTCOMES.reduce((n, o) => n + (items[o] ?? 0), 0);
  if (!row) return { declared: null, items_done: recorded, percent: null, rate_per_second: null, eta_seconds: null };
  // A split batch's retried items are recorded again: never more than declared.
  const done = Math.min(recorded, row.items);
  const seconds = (lastAt.getTime() - row.declared_at.getTime()) / 1000;
  const rate = seconds > 0 ? done / seconds : null;
  const left = row.items - done;
  return {
    declared: declarationOf(row),
    items_done: done,
    percent: row.items > 0 ? Math.floor((done / row.items) * 1000) / 10 : 100,
    rate_per_second: rate === null ? null : Math.round(rate * 10) / 10,
    eta_seconds: left === 0 ? 0 : rate ? Math.ceil(left / rate) : null,
  };
}

/** The support page of a run, for the dashboard's link: undefined when no write of it named a supplier. */
export async function runSupportPath(db: Database, organisation: string, runId: string): Promise<string | undefined> {
  const organisationId = Number(organisation);
  if (!/^\d{1,9}$/.test(organisation) || runId.length === 0 || runId.length > 64) return undefined;
  const supplier = await repo.supplierOfRun(db.pool, organisationId, runId);
  if (supplier === undefined) return undefined;
  const segment = (s: string) => encodeURIComponent(s);
  return `/support/suppliers/${segment(supplier)}/runs/${organisationId}/${segment(runId)}/`;
}
