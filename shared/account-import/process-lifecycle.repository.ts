// The statements of process-lifecycle.ts: the one guarded UPDATE that moves a process (with its event
// in the same statement, in a function planned once per connection), the sweep's look-up of holds, and
// the platform-number look-up. Plain SQL on pg.
import type { Sql } from '../platform/db';
import { callOf, type SqlFunction } from '../platform/sql-function';

/** Columns a move may set besides the status (only these: the names are not input). */
export interface ExtraColumns {
  payload?: string;
  isDryRun?: boolean;
  windowStart?: Date;
  windowEnd?: Date;
  scheduledRequestId?: string;
  operationsTeamName?: string | null;
}

export interface Move {
  process: { id: number } | { supplierCode: string; externalAccountNumber: string };
  from: readonly string[];
  to: string;
  state: string;
  eventName: string;
  now: Date;
  data: Record<string, unknown> | null;
  latestError: unknown;
  /** start: the hold taken (null otherwise: a move out of IN_PROGRESS ends the hold). */
  holder: string | null;
  /** When set, a process IN_PROGRESS moves only if this request holds it. */
  mustHold: string | undefined;
  /** When set, the process's current schedule must be this request. */
  schedule: string | undefined;
  /** The process must have no account (every move but cancel, which PENDING implies anyway). */
  noAccount: boolean;
  set: ExtraColumns;
  /** Answer the staged payload's `payment_instructions` too (start: the job verifies its STRIPE ones). */
  withInstructions?: boolean;
}

/** A process that moved: its id, and its staged `payment_instructions` when asked (Move.withInstructions). */
export interface Moved {
  id: number;
  instructions: unknown;
}

// The guarded UPDATE and its event, for a process found by `which` ($1, $2: its id, or its supplier and
// external number).
const moveQuery = (which: string) => `WITH moved AS (
       UPDATE account_import_processes p
          SET status = $3::text::"ImportStatus", state = $4::text::"ImportState", modified_at = $5::timestamptz,
              latest_error = $6::jsonb,
              held_by = $7, held_at = CASE WHEN $7::text IS NULL THEN NULL ELSE $5::timestamptz END,
              payload = COALESCE($12::jsonb, p.payload),
              is_dry_run = COALESCE($13::boolean, CASE WHEN $3::text = 'PROCESSED' THEN false ELSE p.is_dry_run END),
              schedule_window_start = COALESCE($14::timestamptz, p.schedule_window_start),
              schedule_window_end = COALESCE($15::timestamptz, p.schedule_window_end),
              scheduled_request_id = COALESCE($16, p.scheduled_request_id),
              operations_team_name = CASE WHEN $17::boolean THEN $18::text ELSE p.operations_team_name END,
              staged_at = CASE WHEN $12::jsonb IS NULL THEN p.staged_at ELSE $5::timestamptz END
        WHERE ${which}
          AND p.status::text = ANY($8::text[])
          AND ($9::text IS NULL OR p.status <> 'IN_PROGRESS' OR p.held_by = $9)
          AND ($10::text IS NULL OR p.scheduled_request_id = $10)
          AND (NOT $11 OR NOT EXISTS (SELECT 1 FROM accounts a WHERE a.process_id = p.id))
       RETURNING p.id, CASE WHEN $21 THEN p.payload->'payment_instructions' END AS instructions
     ), event AS (
       INSERT INTO account_import_process_events (process_id, event, occurred_at, data)
       SELECT id, $19, $5::timestamptz, $20::jsonb FROM moved
     )
     SELECT id, instructions FROM moved`;

/** A move's arguments after the process's ($1, $2): the columns it sets, its guards, its event. */
const MOVE_ARGS = [
  'text',
  'text',
  'timestamp with time zone',
  'jsonb',
  'text',
  'text[]',
  'text',
  'text',
  'boolean',
  'jsonb',
  'boolean',
  'timestamp with time zone',
  'timestamp with time zone',
  'text',
  'boolean',
  'text',
  'text',
  'jsonb',
  'boolean',
];

/** moveQuery by process id and by (supplier, external number), each planned once per connection
 * (shared/platform/sql-function.ts; migration 20261128220000). */
export const MOVE_PROCESS_BY_ID: SqlFunction = {
  name: 'move_process_by_id',
  args: ['integer', 'text', ...MOVE_ARGS],
  returns: 'TABLE(id integer, instructions jsonb)',
  query: moveQuery('p.id = $1 AND $2 IS NULL'),
};
export const MOVE_PROCESS_BY_KEY: SqlFunction = {
  name: 'move_process_by_key',
  args: ['text', 'text', ...MOVE_ARGS],
  returns: 'TABLE(id integer, instructions jsonb)',
  query: moveQuery('p.supplier_code = $1 AND p.external_account_number = $2'),
};
const CALL_MOVE_BY_ID = callOf(MOVE_PROCESS_BY_ID);
const CALL_MOVE_BY_KEY = callOf(MOVE_PROCESS_BY_KEY);

/** The guarded UPDATE and its event, in one statement; answers the process when it moved. */
export async function move(db: Sql, m: Move): Promise<Moved | undefined> {
  const p = m.process;
  const key = 'id' in p ? [p.id, null] : [p.supplierCode, p.externalAccountNumber];
  const s = m.set;
  const { rows } = await db.query<Moved>('id' in p ? CALL_MOVE_BY_ID : CALL_MOVE_BY_KEY, [
    key[0],
    key[1],
    m.to,
    m.state,
    m.now,
    m.latestError === null ? null : JSON.stringify(m.latestError),
    m.holder,
    [...m.from],
    m.mustHold ?? null,
    m.schedule ?? null,
    m.noAccount,
    s.payload ?? null,
    s.isDryRun ?? null,
    s.windowStart ?? null,
    s.windowEnd ?? null,
    s.scheduledRequestId ?? null,
    s.operationsTeamName !== undefined,
    s.operationsTeamName ?? null,
    m.eventName,
    m.data === null ? null : JSON.stringify(m.data),
    m.withInstructions ?? false,
  ]);
  return rows[0];
}

/** IN_PROGRESS processes held since before `before`, with their hold and whether its request is answered. */
export async function findOldHolds(
  db: Sql,
  before: Date,
  limit: number,
): Promise<{ id: number; heldBy: string; answered: boolean }[]> {
  const { rows } = await db.query<{ id: number; held_by: string; answered: boolean }>(
    `SELECT p.id, p.held_by, COALESCE(r.http_status IS NOT NULL, true) AS answered
       FROM account_import_processes p
       LEFT JOIN request_results r ON r.id::text = p.held_by
      WHERE p.status = 'IN_PROGRESS' AND p.held_by IS NOT NULL AND p.held_at < $1
        AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.process_id = p.id)
      ORDER BY p.held_at
      LIMIT $2`,
    [before, limit],
  );
  return rows.map((r) => ({ id: r.id, heldBy: r.held_by, answered: r.answered }));
}

/** Which of `numbers` an account has already. */
export async function takenPlatformNumbers(db: Sql, numbers: string[]): Promise<Set<string>> {
  if (numbers.length === 0) return new Set();
  const { rows } = await db.query<{ n: string }>(
    'SELECT platform_account_number AS n FROM accounts WHERE platform_account_number = ANY($1::text[])',
    [numbers],
  );
  return new Set(rows.map((r) => r.n));
}
