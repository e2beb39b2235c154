// The account-creation process's status as the v2 schedule and operators move it, through the
// lifecycle's transition table (process-lifecycle.ts), and the schedule a request made, read back.
import type { Sql } from '../platform/db';
import { INSERT_CREATED_EVENT, INSERT_PROCESS, insertProcess } from './account-import.repository';
import { CREATED_EVENT, TRANSITIONS, transition } from './process-lifecycle';

/**
 * A v2 schedule: PENDING with its window, dry-run flag and request (the process's current schedule,
 * replacing any earlier one), and the event that names the request, in one statement. False when the
 * table refuses (the account exists, or a creation job holds the process).
 */
export async function markScheduled(
  db: Sql,
  process: { supplierCode: string; externalAccountNumber: string },
  schedule: { dryRun: boolean; windowStart: Date; windowEnd: Date; resultId: string; payload?: string },
  now: Date,
): Promise<boolean> {
  const data = {
    request_id: schedule.resultId,
    is_dry_run: schedule.dryRun,
    schedule_window_start: schedule.windowStart.toISOString(),
    schedule_window_end: schedule.windowEnd.toISOString(),
  };
  const moved = await transition(db, {
    process,
    event: 'schedule',
    now,
    data,
    set: {
      isDryRun: schedule.dryRun,
      windowStart: schedule.windowStart,
      windowEnd: schedule.windowEnd,
      scheduledRequestId: schedule.resultId,
      ...(schedule.payload === undefined ? {} : { payload: schedule.payload }),
    },
  });
  return moved !== undefined;
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
    [supplierCode, externalAccountNumber, TRANSITIONS.schedule.name, resultId],
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
  const moved = await transition(db, { process: { supplierCode, externalAccountNumber }, event: 'cancel', now });
  return moved !== undefined;
}

/** What decides a schedule (prepareSchedule). */
export interface ScheduleFacts {
  status: string;
  scheduledRequestId: string | null;
  platformAccountNumber: string | null;
  samePayload: boolean;
  /** Whether the current schedule's request is pending or answered below 500 (its job exists or ran). */
  scheduleLive: boolean;
}

interface ScheduleFactsRow {
  status: string;
  scheduled_request_id: string | null;
  platform_account_number: string | null;
  same: boolean;
  live: boolean;
}

const SCHEDULE_FACTS = `SELECT p.status::text AS status, p.scheduled_request_id, a.platform_account_number,
            COALESCE(p.payload = $3::jsonb, false) AS same,
            COALESCE(r.http_status IS NULL OR r.http_status < 500, false) AS live
       FROM account_import_processes p LEFT JOIN accounts a ON a.process_id = p.id
       LEFT JOIN request_results r ON r.id::text = p.scheduled_request_id
      WHERE p.supplier_code = $1 AND p.external_account_number = $2`;

/**
 * Before a schedule: the process, created with the payload when new (its CREATED event), and what
 * decides the schedule: its status, current schedule, account, and whether its staged payload is
 * `payload` (null: only read; `compareWith` is compared then). Creating and reading are one
 * statement: a new process reads as inserted (PENDING, no schedule, no account, this payload), an
 * existing one as it is; only a process another request inserts at that very moment, which the
 * statement's snapshot does not see yet, is read by a second statement.
 */
export async function prepareSchedule(
  db: Sql,
  names: { supplierCode: string; externalAccountNumber: string },
  payload: string | null,
  now: Date,
  compareWith: string | null = payload,
): Promise<ScheduleFacts> {
  const key = [names.supplierCode, names.externalAccountNumber, compareWith];
  if (payload !== null && compareWith !== payload)
    await insertProcess(db, names.supplierCode, names.externalAccountNumber, payload, now);
  const { rows } =
    payload === null || compareWith !== payload
      ? await db.query<ScheduleFactsRow>(SCHEDULE_FACTS, key)
      : await db.query<ScheduleFactsRow>(
          `WITH process AS (${INSERT_PROCESS}), created AS (${INSERT_CREATED_EVENT})
           SELECT 'PENDING' AS status, NULL::text AS scheduled_request_id, NULL::text AS platform_account_number,
                  true AS same, true AS live
             FROM process
           UNION ALL
           ${SCHEDULE_FACTS}`,
          [...key, now, CREATED_EVENT],
        );
  const r = rows[0] ?? (await db.query<ScheduleFactsRow>(SCHEDULE_FACTS, key)).rows[0]!;
  return {
    status: r.status,
    scheduledRequestId: r.scheduled_request_id,
    platformAccountNumber: r.platform_account_number,
    samePayload: r.same,
    scheduleLive: r.live,
  };
}
