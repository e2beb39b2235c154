// What one organisation may ask of account creation at once, and how big one account and one answer
// may be: a large account is refused before any validation runs (validation is synchronous CPU in the
// API process, so an unbounded account would hold every other organisation's requests behind it), a
// 400 lists at most MAX_LISTED_ERRORS faults, and the per-organisation caps keep one migration's
// schedules and waiting process calls from filling the queue that every organisation shares.
import type { Sql } from '../platform/db';
import { AppError, OverloadError, ValidationError } from '../platform/errors';
import { LIMITS } from './account-import.schemas';
import { countUnanswered } from './account-import.repository';

/** Readings, transactions, notes and statements of one account, in total (docs/account-import.md). */
const MAX_ACCOUNT_ITEMS = 5_000;
/** The faults one 400 lists; `error_count` says how many there were. */
const MAX_LISTED_ERRORS = 100;
/** v2 schedules (dry runs included) of one organisation not yet answered. */
export const MAX_SCHEDULED_PER_ORGANISATION = 2_000;
/** v1 process calls of one organisation waiting for their account at once. */
export const MAX_CONCURRENT_CREATIONS_PER_ORGANISATION = 64;
const RETRY_AFTER_SECONDS = 30;

/** 413 account_too_large: the account holds more items than one creation takes. */
class AccountTooLargeError extends AppError {
  constructor(readonly items: number) {
    super(
      413,
      'account_too_large',
      `The account holds more than ${MAX_ACCOUNT_ITEMS} readings, transactions, notes and statements in total; send the rest to their endpoints once the account exists.`,
    );
  }
}

/** A 400 that lists the first MAX_LISTED_ERRORS faults, and how many there were. */
class BoundedValidationError extends ValidationError {
  constructor(
    errors: ValidationError,
    readonly errorCount: number,
  ) {
    super(errors.errors.slice(0, MAX_LISTED_ERRORS), errors.message, errors.code);
  }

  override toBody(): object {
    return { ...super.toBody(), error_count: this.errorCount };
  }
}

export function boundedErrors(err: ValidationError): ValidationError {
  return err.errors.length > MAX_LISTED_ERRORS ? new BoundedValidationError(err, err.errors.length) : err;
}

const listOf = (value: unknown, max: number): unknown[] => (Array.isArray(value) ? value.slice(0, max) : []);
const lengthOf = (value: unknown): number => (Array.isArray(value) ? value.length : 0);
const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;

/**
 * Counts the account's items on the raw body, before it is validated: lists longer than the schema
 * allows are only looked at up to that bound (the schema refuses them anyway), so the count is bounded.
 */
function accountItems(body: unknown): number {
  let items = 0;
  for (const source of [body, ...listOf(field(body, 'ledgers'), LIMITS.ledgers)]) {
    items += lengthOf(field(source, 'current_statement_transactions'));
    items += lengthOf(field(source, 'historical_statement_transactions'));
  }
  items += lengthOf(field(body, 'notes')) + lengthOf(field(body, 'statements'));
  for (const address of listOf(field(body, 'supply_addresses'), LIMITS.supplyAddresses)) {
    for (const point of listOf(field(address, 'meter_points'), LIMITS.meterPointsPerAddress)) {
      for (const meter of listOf(field(point, 'meters'), LIMITS.metersPerMeterPoint)) {
        items += lengthOf(field(meter, 'transfer_readings')) + lengthOf(field(meter, 'reading_history'));
      }
    }
  }
  return items;
}

export function checkAccountSize(body: unknown): void {
  const items = accountItems(body);
  if (items > MAX_ACCOUNT_ITEMS) throw new AccountTooLargeError(items);
}

/** 409: a creation job holds the account's process; staging waits until it ends. */
class ProcessConflictError extends AppError {
  constructor(code: string, detail: string) {
    super(409, code, detail);
  }
}

export const creationInProgress = () =>
  new ProcessConflictError(
    'account_import_process_in_progress',
    'A creation of this account is running; follow the account status for its outcome.',
  );

/** The answer of a schedule that a later schedule of the same account replaced (only the latest one runs). */
export const rescheduled = () =>
  new ProcessConflictError(
    'account_import_process_rescheduled',
    'A later schedule of this account replaced this one; follow the account status for its outcome.',
  );

/** A cap on an organisation's unanswered requests of one endpoint, and the code of its 429. */
export interface CreationCap {
  endpoint: string;
  cap: number;
  code: 'too_many_scheduled_creations' | 'too_many_concurrent_creations';
}

/** 429 when `unanswered` (a count bounded at the cap) has reached the cap. */
export function refuseOverCap(unanswered: number, cap: CreationCap): void {
  if (unanswered >= cap.cap) {
    throw new OverloadError(
      429,
      cap.code,
      `This organisation has ${cap.cap} account creations waiting already; retry after Retry-After, once some have finished.`,
      RETRY_AFTER_SECONDS,
    );
  }
}

/** 429 when the organisation has `cap` requests of `endpoint` unanswered (a bounded count). */
export async function checkCreationCap(
  db: Sql,
  organisationId: number,
  endpoint: string,
  cap: number,
  code: CreationCap['code'],
): Promise<void> {
  refuseOverCap(await countUnanswered(db, organisationId, endpoint, cap), { endpoint, cap, code });
}
