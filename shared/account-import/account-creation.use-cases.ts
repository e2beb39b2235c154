// Creating accounts, the API's half: the v1 process call (queued, the request waits for the account as a
// transactions batch waits for its import) and the v2 schedule (validated and staged at once, created by a
// job that starts at the window's start). The worker's half is account-creation.job.ts.
import { z } from 'zod';
import type { Database } from '../platform/db';
import { NotFoundError, supplierNotFound, ValidationError } from '../platform/errors';
import { IsoDateTime } from '../platform/fields';
import { isStorableText, parseOrThrow } from '../platform/validation';
import type { Answer } from '../requests/answer';
import type { QueuedRequests } from '../requests/queued-request';
import { parseRequestHeaders, type RequestHeaders } from '../requests/request-headers';
import { accountProcessJob, accountScheduleJob, type AccountCreation } from './account-creation.job';
import * as creation from './creation-status.repository';
import * as repo from './account-import.repository';
import { migrationNotOngoing, stageAccount, v2Payload } from './account-import.use-cases';

/** How far ahead a schedule window may end (the published contract's rule). */
const MAX_WINDOW_AHEAD_MS = 4 * 24 * 3600 * 1000;

/** The v1 process call's body. */
export const ProcessRequest = z.strictObject({
  import_supplier_code: z.string().min(1).max(64),
  external_account_number: z.string().min(1).max(128),
  operations_team_name: z.string().min(1).max(255).nullable().optional(),
  dry_run: z.boolean().optional(),
});

const TaskParams = z.strictObject({
  is_dry_run: z.boolean().optional(),
  schedule_window_start: IsoDateTime.optional(),
  schedule_window_end: IsoDateTime.optional(),
});
/** The v2 schedule's body (its `payload` is validated as the account). */
export const ScheduleRequest = z.strictObject({ payload: z.unknown(), task_params: TaskParams.optional() });

interface Caller {
  organisationId: number;
  headers: RequestHeaders;
  httpRequestId?: string;
}

/** POST /v1/data-import/account-import-process/process/: checks (400s and 404s never queue), then queues and waits. */
export async function requestAccountProcess(
  deps: { db: Database; queued: QueuedRequests },
  caller: Caller,
  body: unknown,
): Promise<Answer> {
  const headers = parseRequestHeaders(caller.headers);
  const req = parseOrThrow(ProcessRequest, body);
  const status = await repo.findVisibleSupplier(deps.db.pool, caller.organisationId, req.import_supplier_code);
  if (status === undefined) throw supplierNotFound();
  if (status !== 'Ongoing') throw migrationNotOngoing(req.import_supplier_code, status, 'import_supplier_code');
  if ((await repo.findStagedPayload(deps.db.pool, req.import_supplier_code, req.external_account_number)) == null) {
    throw new NotFoundError(
      'account_not_found',
      'No staged account data for this import supplier and external account number: stage it with create-or-update first.',
    );
  }
  const payload: AccountCreation = {
    import_supplier_code: req.import_supplier_code,
    external_account_number: req.external_account_number,
    ...(req.operations_team_name ? { operations_team_name: req.operations_team_name } : {}),
    dry_run: req.dry_run ?? false,
  };
  return deps.queued.submit({
    job: accountProcessJob,
    organisationId: caller.organisationId,
    accountId: null,
    ...headers,
    httpRequestId: caller.httpRequestId,
    payload,
  });
}

/**
 * POST /v2/data-import/accounts/: validates the account (400), stages it, and schedules its creation for
 * the window (a BullMQ delayed job); answers 201 at once. The v2 status endpoint follows it. A request
 * repeated with its Idempotency-Key answers what the first one answered, whatever happened since (the
 * account may exist by now); a new schedule of an account that exists is 400
 * account_import_process_already_imported (staging's answer).
 */
export async function scheduleAccountCreation(
  deps: { db: Database; queued: QueuedRequests },
  caller: Caller,
  body: unknown,
  now: Date,
): Promise<ScheduleAnswer> {
  const headers = parseRequestHeaders(caller.headers);
  const { payload, task_params: params = {} } = parseOrThrow(ScheduleRequest, body);
  // The body as sent is what a replay must repeat (the job's payload holds the default window's end).
  const request = (job: AccountCreation | null) => ({
    job: accountScheduleJob,
    organisationId: caller.organisationId,
    accountId: null,
    ...headers,
    httpRequestId: caller.httpRequestId,
    payload: job,
    hashOf: { payload, task_params: params },
  });
  const earlier = await deps.queued.earlier(request(null));
  const replay = earlier && (earlier.httpStatus === null || earlier.httpStatus < 500);
  const replayed = replay ? await scheduledAnswer(deps.db, payload, earlier.resultId) : undefined;
  if (replayed) return replayed;

  const window = scheduleWindow(params, now);
  // Staging validates the account by the rules of validate-account, then stores it.
  const staged = await stageAccount(deps.db, caller.organisationId, v2Payload({ payload }), now);
  const job: AccountCreation = {
    import_supplier_code: staged.body.import_supplier_code,
    external_account_number: staged.body.external_account_number,
    dry_run: params.is_dry_run ?? false,
    window_end: window.end.toISOString(),
  };
  const schedule = { dryRun: job.dry_run, windowStart: window.start, windowEnd: window.end };
  // The process is PENDING with its SCHEDULED event before the job exists: a job that starts at once
  // finds it so, and never has its outcome overwritten.
  const markScheduled = (resultId: string) =>
    creation.markScheduled(
      deps.db.pool,
      { supplierCode: job.import_supplier_code, externalAccountNumber: job.external_account_number },
      { ...schedule, resultId },
      now,
    );
  const delay = Math.max(0, window.start.getTime() - now.getTime());
  const { resultId } = await deps.queued.schedule(request(job), delay, markScheduled);
  return (
    (await scheduledAnswer(deps.db, payload, resultId)) ??
    scheduleAnswer(job.import_supplier_code, job.external_account_number, resultId, schedule)
  );
}

export interface ScheduleAnswer {
  import_supplier_code: string;
  external_identifier: string;
  status: 'PENDING';
  request_id: string;
  schedule_window_start: string;
  schedule_window_end: string;
  is_dry_run: boolean;
}

function scheduleAnswer(
  supplierCode: string,
  externalIdentifier: string,
  resultId: string,
  schedule: { dryRun: boolean; windowStart: Date; windowEnd: Date },
): ScheduleAnswer {
  return {
    import_supplier_code: supplierCode,
    external_identifier: externalIdentifier,
    status: 'PENDING',
    request_id: resultId,
    schedule_window_start: schedule.windowStart.toISOString(),
    schedule_window_end: schedule.windowEnd.toISOString(),
    is_dry_run: schedule.dryRun,
  };
}

/**
 * The answer a schedule gave, read back from its SCHEDULED event: the account's names come from the
 * body (a replay's body is the first request's, whose staging succeeded, or it would have no request).
 */
async function scheduledAnswer(db: Database, payload: unknown, resultId: string): Promise<ScheduleAnswer | undefined> {
  const names = payload as { import_supplier?: unknown; external_account_number?: unknown };
  const supplier = names.import_supplier;
  const external = names.external_account_number;
  if (typeof supplier !== 'string' || typeof external !== 'string') return undefined;
  if (!isStorableText(supplier) || !isStorableText(external)) return undefined;
  const found = await creation.findSchedule(db.pool, supplier, external, resultId);
  return found && scheduleAnswer(supplier, external, resultId, found);
}

/** The window: from now (or the given start) to the given end (or four days after now), at most four days ahead. */
function scheduleWindow(params: z.output<typeof TaskParams>, now: Date): { start: Date; end: Date } {
  const start = params.schedule_window_start ?? now;
  const end = params.schedule_window_end ?? new Date(now.getTime() + MAX_WINDOW_AHEAD_MS);
  if (end.getTime() - now.getTime() > MAX_WINDOW_AHEAD_MS) {
    throw ValidationError.single(
      'task_params.schedule_window_end',
      'schedule_window_end_too_far_in_future',
      'The schedule window must end within 4 days from now.',
    );
  }
  if (end.getTime() <= start.getTime() || end.getTime() <= now.getTime()) {
    throw ValidationError.single(
      'task_params.schedule_window_end',
      'invalid_schedule_window',
      'The schedule window must end after it starts, and in the future.',
    );
  }
  return { start, end };
}

/** An operator cancels a PENDING creation (admin CLI): its job, when it starts, creates nothing. */
export async function cancelAccountCreation(
  db: Database,
  supplierCode: string,
  externalAccountNumber: string,
  now: Date,
): Promise<{ cancelled: boolean }> {
  return { cancelled: await creation.cancelPending(db.pool, supplierCode, externalAccountNumber, now) };
}
