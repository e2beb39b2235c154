// The account-creation process's status as the jobs, the v2 schedule and operators move it (the creation's
// own statements are in account-import.repository.ts). Every transition records an event.
import type { Sql } from '../platform/db';
import type { ValidationError } from '../platform/errors';
import { recordEvent } from './account-import.repository';
import { markRefused } from './create-account.repository';

const CREATION_EVENTS = {
  scheduled: 'EVENT_ACCOUNT_IMPORT_PROCESS_SCHEDULED',
  errored: 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED',
  dryRunErrored: 'EVENT_ACCOUNT_IMPORT_PROCESS_DRY_RUN_ERRORED',
  cancelled: 'EVENT_ACCOUNT_IMPORT_PROCESS_CANCELLED',
} as const;

/** A creation refused before it began (window passed, a card of another organisation): ERRORED with the reason. */
export async function markRefusedBeforeCreation(
  tx: Sql,
  processId: number,
  dryRun: boolean,
  err: ValidationError,
  now: Date,
): Promise<void> {
  const first = err.errors[0];
  const latest = { code: first?.code ?? err.code, detail: first?.detail ?? err.message, domain: 'import_process' };
  await markRefused(tx, processId, dryRun, latest, now);
  await recordEvent(tx, processId, dryRun ? CREATION_EVENTS.dryRunErrored : CREATION_EVENTS.errored, now, latest);
}

/**
 * A v2 schedule: PENDING with its window and dry-run flag, and the event that names the request that
 * follows it, in one statement (atomic on its own).
 */
export async function markScheduled(
  db: Sql,
  process: { supplierCode: string; externalAccountNumber: string },
  schedule: { dryRun: boolean; windowStart: Date; windowEnd: Date; resultId: string },
  now: Date,
): Promise<void> {
  const data = {
    request_id: schedule.resultId,
    is_dry_run: schedule.dryRun,
    schedule_window_start: schedule.windowStart.toISOString(),
    schedule_window_end: schedule.windowEnd.toISOString(),
  };
  await db.query(
    `WITH scheduled AS (
       UPDATE account_import_processes
          SET status = 'PENDING', is_dry_run = $3, schedule_window_start = $4, schedule_window_end = $5,
              latest_error = NULL, modified_at = $6
        WHERE supplier_code = $1 AND external_account_number = $2
       RETURNING id
     )
     INSERT INTO account_import_process_events (process_id, event, occurred_at, data)
     SELECT id, $7, $6, $8::jsonb FROM scheduled`,
    [
      process.supplierCode,
      process.externalAccountNumber,
      schedule.dryRun,
      schedule.windowStart,
      schedule.windowEnd,
      now,
      CREATION_EVENTS.scheduled,
      JSON.stringify(data),
    ],
  );
}

/** The window and dry-run flag a v2 schedule (its request id) gave the process, from its SCHEDULED event. */
export async function findSchedule(
  db: Sql,
  supplierCode: string,
  externalAccountNumber: string,
  resultId: string,
): Promise<{ dryRun: boolean; windowStart: Date; windowEnd: Date } | undefined> {
  const { rows } = await db.query<{
    data: { is_dry_run: boolean; schedule_window_start: string; schedule_window_end: string };
  }>(
    `SELECT e.data FROM account_import_processes p
       JOIN account_import_process_events e ON e.process_id = p.id
      WHERE p.supplier_code = $1 AND p.external_account_number = $2
        AND e.event = $3 AND e.data->>'request_id' = $4
      ORDER BY e.id LIMIT 1`,
    [supplierCode, externalAccountNumber, CREATION_EVENTS.scheduled, resultId],
  );
  const data = rows[0]?.data;
  if (!data) return undefined;
  return {
    dryRun: data.is_dry_run,
    windowStart: new Date(data.schedule_window_start),
    windowEnd: new Date(data.schedule_window_end),
  };
}

/**
 * An operator cancels a PENDING creation: CANCELLED, so its job, when it starts, creates nothing.
 * Answers whether the process was PENDING (only a PENDING one can be cancelled).
 */
export async function cancelPending(
  db: Sql,
  supplierCode: string,
  externalAccountNumber: string,
  now: Date,
): Promise<boolean> {
  const { rows } = await db.query<{ id: number }>(
    `UPDATE account_import_processes SET status = 'CANCELLED', modified_at = $3
      WHERE supplier_code = $1 AND external_account_number = $2 AND status = 'PENDING'
      RETURNING id`,
    [supplierCode, externalAccountNumber, now],
  );
  if (!rows[0]) return false;
  await recordEvent(db, rows[0].id, CREATION_EVENTS.cancelled, now, null);
  return true;
}
