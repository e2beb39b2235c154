// An account import process's life, in one place: its statuses, the transition table (status × event →
// status), the events it records, its latest_error, and the platform-number allocator every creation
// path uses. Every write of a process's status goes through `transition` (this file and
// process-lifecycle.repository.ts): a move the table does not allow is logged and not written. The v1
// `state` is derived from the status here (`STATE_OF`), so the v1 status, the lists, the support page
// and the v2 status always read one state. docs/account-import.md draws the table.
import { randomBytes } from 'node:crypto';
import type { Sql } from '../platform/db';
import type { AppError, FieldError } from '../platform/errors';
import { ValidationError } from '../platform/errors';
import { createLogger } from '../platform/logger';
import * as repo from './process-lifecycle.repository';

/** Refused transitions are worth a line whatever the process's log level: they mean a race was lost or a bug. */
const log = createLogger('warn', 'account-import-lifecycle');

/** The v2 statuses (the ImportStatus enum of the schema). */
export type ProcessStatus =
  'PENDING' | 'IN_PROGRESS' | 'PROCESSED' | 'ERRORED' | 'DRY_RUN_SUCCEEDED' | 'DRY_RUN_ERRORED' | 'CANCELLED';
export type ProcessState = 'STAGED' | 'IN_PROGRESS' | 'IMPORTED' | 'FAILED';

/**
 * The v1 `state` of each status (what the v1 status and the lists read): UNKNOWN (STAGED, FAILED) unless
 * a creation job holds the process (IN_PROGRESS) or its account exists (IMPORTED). The DRY_RUN_*
 * statuses are only on processes of older releases: a dry run no longer touches its process.
 */
const STATE_OF: Record<ProcessStatus, ProcessState> = {
  PENDING: 'STAGED',
  IN_PROGRESS: 'IN_PROGRESS',
  PROCESSED: 'IMPORTED',
  ERRORED: 'FAILED',
  DRY_RUN_SUCCEEDED: 'STAGED',
  DRY_RUN_ERRORED: 'STAGED',
  CANCELLED: 'FAILED',
};

/**
 * The states `admin` sets directly (the platform team records a migration's own creation step) and the
 * status each one means, so that every reader agrees whoever wrote the process. An admin IN_PROGRESS
 * has no holder: no job of this service holds it, and the sweep leaves it alone.
 */
export const ADMIN_STATES = {
  staged: { state: 'STAGED', status: 'PENDING' },
  in_progress: { state: 'IN_PROGRESS', status: 'IN_PROGRESS' },
  imported: { state: 'IMPORTED', status: 'PROCESSED' },
  failed: { state: 'FAILED', status: 'ERRORED' },
} as const satisfies Record<string, { state: ProcessState; status: ProcessStatus }>;

/** What happens to a process. Each event has one target status; the table says from which it may. */
export type LifecycleEvent = 'stage' | 'schedule' | 'start' | 'create' | 'refuse' | 'cancel' | 'release';

const OPEN: readonly ProcessStatus[] = ['PENDING', 'ERRORED', 'CANCELLED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED'];

/** The transition table: event → (allowed from-statuses, target status, the event name recorded). */
export const TRANSITIONS: Record<LifecycleEvent, { from: readonly ProcessStatus[]; to: ProcessStatus; name: string }> =
  {
    // Staged again (create-or-update, or a v2 schedule's payload): never while a job holds it, never once created.
    stage: { from: OPEN, to: 'PENDING', name: 'EVENT_ACCOUNT_IMPORT_PROCESS_UPDATED' },
    schedule: { from: OPEN, to: 'PENDING', name: 'EVENT_ACCOUNT_IMPORT_PROCESS_SCHEDULED' },
    // A creation job takes the process. From IN_PROGRESS only by the job that holds it (a redelivery).
    start: {
      from: ['PENDING', 'ERRORED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED', 'IN_PROGRESS'],
      to: 'IN_PROGRESS',
      name: 'EVENT_ACCOUNT_IMPORT_PROCESS_STARTED',
    },
    create: { from: ['IN_PROGRESS'], to: 'PROCESSED', name: 'EVENT_ACCOUNT_IMPORT_PROCESS_PROCESSED' },
    refuse: { from: ['IN_PROGRESS'], to: 'ERRORED', name: 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED' },
    cancel: { from: ['PENDING'], to: 'CANCELLED', name: 'EVENT_ACCOUNT_IMPORT_PROCESS_CANCELLED' },
    // The sweep: a hold whose job no longer exists (a crash, spent attempts) ends ERRORED.
    release: { from: ['IN_PROGRESS'], to: 'ERRORED', name: 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED' },
  };

/** The event a new process is created with (staged the first time). */
export const CREATED_EVENT = 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED';

/** The v2 status's latest_error: the first fault, its attr, and the request whose answer lists them all. */
export interface LatestError {
  code: string;
  detail: string;
  attr: string | null;
  request_id: string | null;
  domain: 'import_process';
}

/** latest_error of a refusal, built here only. */
export function latestErrorOf(err: AppError, requestId: string | null): LatestError {
  const first: FieldError | undefined = err instanceof ValidationError ? err.errors[0] : undefined;
  return {
    code: first?.code ?? err.code,
    detail: first ? `${first.attr}: ${first.detail}` : err.message,
    attr: first?.attr ?? null,
    request_id: requestId,
    domain: 'import_process',
  };
}

export interface TransitionInput {
  /** The process: by id, or by its names. */
  process: { id: number } | { supplierCode: string; externalAccountNumber: string };
  event: LifecycleEvent;
  now: Date;
  /** The creation job's request (start: it takes the hold; create/refuse/release: only its own hold). */
  holder?: string;
  /** refuse and release: what went wrong. */
  error?: LatestError;
  /** Recorded with the event. */
  data?: Record<string, unknown>;
  /** Further columns the move sets (stage: the payload; schedule: the window and its request). */
  set?: repo.ExtraColumns;
  /** schedule: a v2 job starts only when it is the process's current schedule. */
  schedule?: string;
}

/**
 * Moves the process by `event` if the table allows it from its status (a guarded UPDATE whose allowed
 * from-statuses come from the table, with the event in the same statement). Answers the process's id,
 * or undefined, logged, when the move was refused (or there is no such process).
 */
export async function transition(db: Sql, input: TransitionInput): Promise<number | undefined> {
  return (await transitionAnswering(db, input))?.id;
}

/** transition, answering the moved process with its staged `payment_instructions` when `withInstructions`. */
export async function transitionAnswering(
  db: Sql,
  input: TransitionInput & { withInstructions?: boolean },
): Promise<repo.Moved | undefined> {
  const t = TRANSITIONS[input.event];
  const moved = await repo.move(db, {
    process: input.process,
    from: t.from,
    to: t.to,
    state: STATE_OF[t.to],
    eventName: t.name,
    now: input.now,
    data: input.data ?? (input.error ? { ...input.error } : null),
    latestError: input.event === 'refuse' || input.event === 'release' ? (input.error ?? null) : null,
    holder: input.event === 'start' ? (input.holder ?? null) : null,
    // Ending a hold, or re-taking it after a redelivery: only the job that holds the process may.
    mustHold:
      ['create', 'refuse', 'release'].includes(input.event) || input.event === 'start' ? input.holder : undefined,
    schedule: input.schedule,
    // create moves the process whose account this transaction has just inserted.
    noAccount: input.event !== 'cancel' && input.event !== 'create',
    set: input.set ?? {},
    withInstructions: input.withInstructions,
  });
  if (moved === undefined) {
    log.warn(
      { process: input.process, event: input.event, allowedFrom: t.from, holder: input.holder },
      'account import process transition refused',
    );
  }
  return moved;
}

/**
 * The platform-number allocator of every creation path (the API's jobs and `admin`): `A-` and 32
 * random bits. A collision is rare but certain over millions of accounts, so a number is used only where
 * no account has it (the unique index behind), and drawn again when taken. Numbers are never reused:
 * accounts are never deleted.
 */
export const drawPlatformNumber = (): string => `A-${randomBytes(4).toString('hex').toUpperCase()}`;

/** `count` distinct numbers no account has (the admin paths; the job's insert checks its own draw). */
export async function freePlatformNumbers(db: Sql, count: number, used: Set<string> = new Set()): Promise<string[]> {
  const free: string[] = [];
  for (let round = 0; free.length < count; round++) {
    if (round > 100) throw new Error('Could not draw free platform account numbers.');
    const candidates = new Set<string>();
    while (candidates.size < count - free.length) {
      const n = drawPlatformNumber();
      if (!used.has(n)) candidates.add(n);
    }
    const taken = await repo.takenPlatformNumbers(db, [...candidates]);
    for (const n of candidates) {
      if (taken.has(n)) continue;
      free.push(n);
      used.add(n);
    }
  }
  return free;
}
