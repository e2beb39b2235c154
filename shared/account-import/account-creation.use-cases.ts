// Creating accounts, the API's half: the v1 process call (queued, the request waits for the account as a
// transactions batch waits for its import) and the v2 schedule (validated and staged at once, created by a
// job that starts at the window's start). The worker's half is account-creation.job.ts.
import { z } from 'zod';
import type { Database } from '../platform/db';
import { AppError, supplierNotFound, ValidationError } from '../platform/errors';
import type { JobQueues } from '../platform/queues';
import { IsoDateTime } from '../platform/fields';
import { isStorableText, parseOrThrow } from '../platform/validation';
import type { Answer } from '../requests/answer';
import type { QueuedRequests } from '../requests/queued-request';
import { storeAnswerIfPending } from '../requests/request-result.public';
import { parseRequestHeaders, type RequestHeaders } from '../requests/request-headers';
import { accountProcessJob, accountScheduleJob, type AccountCreation } from './account-creation.job';
import * as creation from './creation-status.repository';
import * as repo from './account-import.repository';
import { AlreadyImportedError, accountJson, checkSchedulable, migrationNotOngoing } from './account-import.use-cases';
import {
  checkCreationCap,
  creationInProgress,
  MAX_CONCURRENT_CREATIONS_PER_ORGANISATION,
  MAX_SCHEDULED_PER_ORGANISATION,
  rescheduled,
} from './account-bounds';
import { importProcessDoesNotExist } from './create-account';

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
    throw importProcessDoesNotExist();
  }
  await checkCreationCap(
    deps.db.pool,
    caller.organisationId,
    accountProcessJob.endpoint,
    MAX_CONCURRENT_CREATIONS_PER_ORGANISATION,
    'too_many_concurrent_creations',
  );
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
 * repeated with its Idempotency-Key answers what the first one answered, whatever happened since.
 * One schedule per account: a schedule of the same data while one is pending or running answers that
 * one's 201; with other data it replaces a pending one (whose request then answers 409
 * account_import_process_rescheduled) and is 409 account_import_process_in_progress while a job runs;
 * once the account exists, 400 account_import_process_already_imported. A dry run stages nothing.
 */
export async function scheduleAccountCreation(
  deps: ScheduleDeps,
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
  // Validated by the rules of validate-account and staging (after the cap); written only by a real schedule.
  const account = await checkSchedulable(deps.db, caller.organisationId, payload, {
    endpoint: accountScheduleJob.endpoint,
    cap: MAX_SCHEDULED_PER_ORGANISATION,
    code: 'too_many_scheduled_creations',
  });
  const names = { supplierCode: account.import_supplier, externalAccountNumber: account.external_account_number };
  const dryRun = params.is_dry_run ?? false;
  const accountAsJson = accountJson(account);
  const job: AccountCreation = {
    import_supplier_code: names.supplierCode,
    external_account_number: names.externalAccountNumber,
    dry_run: dryRun,
    window_end: window.end.toISOString(),
    ...(dryRun ? { account: JSON.parse(accountAsJson) as Record<string, unknown> } : {}),
  };
  const schedule = { dryRun, windowStart: window.start, windowEnd: window.end };
  const delay = Math.max(0, window.start.getTime() - now.getTime());
  const answer = (resultId: string) =>
    scheduleAnswer(names.supplierCode, names.externalAccountNumber, resultId, schedule);
  if (dryRun) return answer((await deps.queued.schedule(request(job), delay)).resultId);

  const submit = (beforeEnqueue?: (resultId: string) => Promise<void>) =>
    deps.queued.schedule(request(job), delay, beforeEnqueue);
  return scheduleOnce(deps, { names, accountAsJson, payload, schedule, submit, retryOf: earlier?.resultId }, now);
}

/**
 * A real schedule, one per account: the same data again answers the schedule that runs; other data
 * replaces a pending schedule; nothing while a job holds the process or once its account exists.
 */
async function scheduleOnce(
  deps: ScheduleDeps,
  s: {
    names: { supplierCode: string; externalAccountNumber: string };
    accountAsJson: string;
    payload: unknown;
    schedule: { dryRun: boolean; windowStart: Date; windowEnd: Date };
    submit: (beforeEnqueue: (resultId: string) => Promise<void>) => Promise<{ resultId: string; replayed: boolean }>;
    /** The request an earlier one with this Idempotency-Key made, when this is its retry. */
    retryOf: string | undefined;
  },
  now: Date,
): Promise<ScheduleAnswer> {
  const { names, accountAsJson, payload, schedule } = s;
  const current = await creation.prepareSchedule(deps.db.pool, names, accountAsJson, now);
  if (current.platformAccountNumber !== null)
    throw new AlreadyImportedError(names.externalAccountNumber, current.platformAccountNumber);
  // The same account data again (a repeated line of a migration file): the schedule that runs answers.
  // Not this very request retried with its key (its job may be lost: it is added again below), nor a
  // schedule whose job was lost (answered "retry as it is"): this one replaces it.
  const first =
    current.samePayload &&
    current.scheduleLive &&
    current.scheduledRequestId !== s.retryOf &&
    current.scheduledRequestId;
  const firstAnswer = first ? await scheduledAnswer(deps.db, payload, first) : undefined;
  if (firstAnswer && (current.status === 'PENDING' || current.status === 'IN_PROGRESS')) return firstAnswer;
  if (current.status === 'IN_PROGRESS') throw creationInProgress();

  // The process is PENDING with its payload and SCHEDULED event before the job exists (one guarded
  // statement): a job that starts at once finds it so. Refused (created or taken meanwhile): the
  // request answers why, and its job, never added, never runs.
  const markScheduled = async (resultId: string) => {
    const scheduled = { ...schedule, resultId, payload: accountAsJson };
    if (await creation.markScheduled(deps.db.pool, names, scheduled, now)) return;
    const refusal = await whyNotScheduled(deps.db, names);
    await storeAnswerIfPending(deps.db.pool, resultId, refusal);
    throw refusal;
  };
  let resultId: string;
  let replayed: boolean;
  try {
    ({ resultId, replayed } = await s.submit(markScheduled));
  } catch (err) {
    // Refused (not a queue fault): another schedule of the same data won the race and its job has
    // started or finished: its answer.
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    const now2 = await creation.prepareSchedule(deps.db.pool, names, null, new Date(), accountAsJson);
    const winner = now2.samePayload && now2.scheduleLive && now2.scheduledRequestId;
    const replay = winner ? await scheduledAnswer(deps.db, payload, winner) : undefined;
    if (replay) return replay;
    throw err;
  }
  if (current.scheduledRequestId !== null && current.scheduledRequestId !== resultId)
    await replaceSchedule(deps, current.scheduledRequestId);
  // A new request's SCHEDULED event is the one markScheduled has just written: its answer is this
  // schedule's. A replayed one (the retry of a request whose job was lost) answers what it first did.
  const fresh = scheduleAnswer(names.supplierCode, names.externalAccountNumber, resultId, schedule);
  return replayed ? ((await scheduledAnswer(deps.db, payload, resultId)) ?? fresh) : fresh;
}

interface ScheduleDeps {
  db: Database;
  queued: QueuedRequests;
  queues: JobQueues;
}

/** The schedule a later one replaced: its delayed job removed, its request answered 409 rescheduled. */
async function replaceSchedule(deps: ScheduleDeps, previous: string): Promise<void> {
  // A job that is running already cannot be removed: the table refuses it the process (not its schedule).
  const job = await deps.queues.queue(accountScheduleJob.queue).getJob(previous);
  if (job && (await job.getState()) === 'delayed') await job.remove().catch(() => undefined);
  await storeAnswerIfPending(deps.db.pool, previous, rescheduled());
}

async function whyNotScheduled(db: Database, names: { supplierCode: string; externalAccountNumber: string }) {
  const now = await creation.prepareSchedule(db.pool, names, null, new Date());
  return now.platformAccountNumber !== null
    ? new AlreadyImportedError(names.externalAccountNumber, now.platformAccountNumber)
    : creationInProgress();
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

/** How far in the past a window's start may be (clocks differ); earlier is 400 at schedule_window_start. */
const START_SKEW_MS = 60_000;

/** The window: from now (or the given start) to the given end (or four days after now), at most four days ahead. */
function scheduleWindow(params: z.output<typeof TaskParams>, now: Date): { start: Date; end: Date } {
  const start = params.schedule_window_start ?? now;
  if (start.getTime() < now.getTime() - START_SKEW_MS) {
    throw ValidationError.single(
      'task_params.schedule_window_start',
      'schedule_window_start_in_past',
      'The schedule window must not start in the past.',
    );
  }
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
