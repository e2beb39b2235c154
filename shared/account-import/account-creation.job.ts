// The account-creation jobs: a staged process becomes an account in one transaction with the request's
// answer (shared/requests/queued-job.ts). Two job kinds share the queue and the code: the v1 process
// call, whose request waits for the answer, and the v2 schedule, a job that waits in BullMQ for its
// window's start while its request has already answered.
//
// The process's life is process-lifecycle.ts's: a real run first takes the process (`start`: IN_PROGRESS,
// held by this job's request, committed on its own so the status endpoints show it), verifies its STRIPE
// instructions with the vendor, then in the transaction that stores its answer ends the hold: `create`
// (PROCESSED) or `refuse` (ERRORED, latest_error at the item). A job the table does not let start (the
// account exists, another job holds it, a later schedule replaced this one, an operator cancelled it)
// answers why and changes nothing. A dry run never takes, stages, binds or records anything. A job whose
// request is answered already (a redelivery, the dashboard's retry of a finished job) does nothing.
import { z } from 'zod';
import type { Config } from '../platform/config';
import type { Sql } from '../platform/db';
import { AppError, TransientError, ValidationError } from '../platform/errors';
import { CLEAN_UP } from '../platform/queues';
import { parseOrThrow } from '../platform/validation';
import type { Answer } from '../requests/answer';
import { refusalAnswer } from '../requests/answer';
import {
  queuedRequestJob,
  type JobContext,
  type JobPayload,
  type PreparedRequest,
  type QueuedRequest,
} from '../requests/job-declaration';
import { verifyAtVendor } from '../payment-instructions/vendors/vendors';
import { bindStripeCustomer } from '../payment-instructions/customer-ownership';
import { AlreadyImportedError } from './account-import.use-cases';
import { creationInProgress, rescheduled } from './account-bounds';
import * as repo from './create-account.repository';
import {
  createLockedAccount,
  endHold,
  insertAccountRows,
  importProcessDoesNotExist,
  lockProcess,
  markCreationStarted,
  stripeInstructionsOf,
  type AccountRows,
  type CreateAccountInput,
  type VerifiedInstruction,
} from './create-account';

/**
 * What an account-creation job carries. `window_end`: a v2 schedule's, past which the job no longer
 * creates (its presence marks a v2 job). `account`: a v2 dry run's account, which is never staged.
 */
const AccountCreationPayload = z.strictObject({
  import_supplier_code: z.string().min(1).max(64),
  external_account_number: z.string().min(1).max(128),
  operations_team_name: z.string().min(1).max(255).optional(),
  dry_run: z.boolean().default(false),
  window_end: z.iso.datetime({ offset: true }).max(40).optional(),
  account: z.record(z.string(), z.unknown()).optional(),
});
export type AccountCreation = z.output<typeof AccountCreationPayload>;

const accountCreationPayload: JobPayload<AccountCreation> = {
  version: 2,
  validate: (json) => parseOrThrow(AccountCreationPayload, json),
  fromJob: (json) => json as AccountCreation,
};

interface Prepared {
  documentBucket: string;
  verifiedInstructions: VerifiedInstruction[];
  /** A real run that took the process: its transaction must end the hold. */
  held: boolean;
  /** The answer, without creating (the vendor refused, or the job could not take the process). */
  refusal?: AppError;
}

const common = {
  queue: 'accounts',
  payload: accountCreationPayload,
  retry: { attempts: 5, backoff: { type: 'exponential' as const, delay: 200 } },
  cleanUp: CLEAN_UP,
  concurrency: (config: Pick<Config, 'WORKER_CONCURRENCY'>) => config.WORKER_CONCURRENCY,
  // A redelivered job, or a finished one retried from the dashboard, finds its request answered and
  // does nothing: it never takes the process again.
  onlyWhilePending: true,
  group: {
    // Two creations of one account never share a transaction (the second must see the first's account).
    keyOf: (request: QueuedRequest<AccountCreation>) =>
      `${request.payload.import_supplier_code}\u0000${request.payload.external_account_number}`,
    maxSize: 16,
    inFlight: 2,
  },
  prepare: startCreation,
  commit: (tx: Sql, requests: PreparedRequest<AccountCreation, Prepared>[], locks: { wait: boolean }) =>
    createInGroup(tx, requests, new Date(), locks),
  exhausted: () =>
    new TransientError(
      'temporary_failure',
      'The account could not be created because of a temporary failure. Retry the request as it is.',
    ),
};

/** POST /v1/data-import/account-import-process/process/: the request waits for the account. */
export const accountProcessJob = queuedRequestJob<AccountCreation, Prepared>({
  ...common,
  name: 'process-account',
  endpoint: 'account-import-process/process',
});

/** POST /v2/data-import/accounts/: the job starts at its window; its request answered at once. */
export const accountScheduleJob = queuedRequestJob<AccountCreation, Prepared>({
  ...common,
  name: 'create-scheduled-account',
  endpoint: 'v2/accounts',
});

const isSchedule = (p: AccountCreation) => p.window_end !== undefined;

/** Outside the transaction: take the process (a real run), then ask the vendor about each STRIPE instruction. */
async function startCreation(request: QueuedRequest<AccountCreation>, ctx: JobContext): Promise<Prepared> {
  const p = request.payload;
  const prepared: Prepared = { documentBucket: ctx.config.DOCUMENT_BUCKET, verifiedInstructions: [], held: false };
  const names = { supplierCode: p.import_supplier_code, externalAccountNumber: p.external_account_number };
  let stripe: repo.StagedStripeInstruction[];
  if (p.dry_run) {
    stripe = p.account ? stripeInstructionsOf(p.account) : await repo.stagedStripeInstructionsOf(ctx.db.pool, names);
  } else {
    const started = await markCreationStarted(
      ctx.db.pool,
      { ...names, resultId: request.resultId, schedule: isSchedule(p) ? request.resultId : undefined },
      new Date(),
    );
    if (!started) return { ...prepared, refusal: await whyNotStarted(ctx.db.pool, request) };
    prepared.held = true;
    stripe = started.stripeInstructions;
  }
  if (stripe.length > 0 && ctx.config.STRIPE_REQUIRE_RECORDED_CUSTOMER) {
    return { ...prepared, refusal: stripeNeedsRecordedCustomer(stripe[0]!.index) };
  }
  for (const { index, reference, type } of stripe) {
    try {
      const details = await verifyAtVendor(
        ctx.config,
        { vendor: 'STRIPE', type, reference },
        request.organisationId,
        ctx.config.VENDOR_TIMEOUT_MS,
      );
      prepared.verifiedInstructions.push({ index, vendorDetails: details });
    } catch (err) {
      // A refusal ends the attempt (recorded on the process by the commit); a fault is retried.
      if (err instanceof AppError && err.status < 500) return { ...prepared, refusal: atInstruction(err, index) };
      throw err;
    }
  }
  return prepared;
}

/** A vendor's refusal of an instruction, at that instruction (`payment_instructions.0.reference`). */
function atInstruction(err: AppError, index: number): ValidationError {
  const at = (attr: string) =>
    attr === 'non_field_errors' ? `payment_instructions.${index}` : `payment_instructions.${index}.${attr}`;
  if (err instanceof ValidationError) {
    return new ValidationError(
      err.errors.map((e) => ({ ...e, attr: at(e.attr) })),
      err.message,
      err.code,
    );
  }
  return ValidationError.single(`payment_instructions.${index}.reference`, err.code, err.message);
}

/** Why the table did not let the job take the process: its answer. */
async function whyNotStarted(db: Sql, request: QueuedRequest<AccountCreation>): Promise<AppError> {
  const p = request.payload;
  const facts = await repo.findProcessFacts(db, p.import_supplier_code, p.external_account_number);
  if (!facts || facts.payload === null) return importProcessDoesNotExist();
  if (facts.platformAccountNumber !== null)
    return new AlreadyImportedError(p.external_account_number, facts.platformAccountNumber);
  if (facts.status === 'CANCELLED') return creationCancelled();
  if (isSchedule(p) && facts.scheduledRequestId !== request.resultId) return rescheduled();
  return creationInProgress();
}

/**
 * In the group's transaction: each creation in turn (they are of different accounts). In a group of
 * several (`locks.wait` false) a process row another transaction holds fails the group at once instead
 * of holding up its other accounts; its jobs are then committed alone, each waiting for its own row.
 */
async function createInGroup(
  tx: Sql,
  requests: PreparedRequest<AccountCreation, Prepared>[],
  now: Date,
  locks: { wait: boolean },
): Promise<Answer[]> {
  const answers: Answer[] = [];
  // The group's accounts' other rows: one statement per table for the group, before it commits.
  const rows: AccountRows[] = [];
  for (const { request, prepared } of requests) answers.push(await createOne(tx, request, prepared, now, locks, rows));
  await insertAccountRows(tx, rows);
  return answers;
}

async function createOne(
  tx: Sql,
  request: QueuedRequest<AccountCreation>,
  prepared: Prepared,
  now: Date,
  locks: { wait: boolean },
  rows: AccountRows[],
): Promise<Answer> {
  const p = request.payload;
  const input: CreateAccountInput = {
    supplierCode: p.import_supplier_code,
    externalAccountNumber: p.external_account_number,
    operationsTeamName: p.operations_team_name,
    dryRun: p.dry_run,
    resultId: request.resultId,
    documentBucket: prepared.documentBucket,
    verifiedInstructions: prepared.verifiedInstructions,
    ...(p.account ? { payload: p.account } : {}),
  };
  const process = await lockProcess(tx, input, locks);
  if (p.dry_run) return dryRun(tx, request, prepared, process, input, now);
  if (!prepared.held) return refusalAnswer(prepared.refusal ?? importProcessDoesNotExist());
  // The sweep released the hold while the vendor was asked (minutes): start again from the top.
  if (process?.status !== 'IN_PROGRESS' || process.heldBy !== request.resultId)
    throw new Error('the creation job no longer holds its account import process');
  const refusal =
    prepared.refusal ??
    (p.window_end !== undefined && now.getTime() > Date.parse(p.window_end) ? windowPassed() : undefined) ??
    (await stripeOwnedElsewhere(tx, request.organisationId, prepared.verifiedInstructions, { bind: true }));
  if (refusal) {
    await endHold(tx, process.id, input, now, { event: 'refuse', error: refusal });
    return refusalAnswer(refusal);
  }
  return answerOf(await createLockedAccount(tx, process, input, now, rows));
}

/**
 * A dry run: the real run's checks and statements, rolled back; nothing of it is kept (no process, no
 * event, no status, no Stripe binding). It answers as the real run would, without a platform number.
 */
async function dryRun(
  tx: Sql,
  request: QueuedRequest<AccountCreation>,
  prepared: Prepared,
  process: repo.LockedProcess | undefined,
  input: CreateAccountInput,
  now: Date,
): Promise<Answer> {
  if (process?.platformAccountNumber)
    return refusalAnswer(new AlreadyImportedError(input.externalAccountNumber, process.platformAccountNumber));
  const refusal =
    prepared.refusal ??
    (await stripeOwnedElsewhere(tx, request.organisationId, prepared.verifiedInstructions, { bind: false }));
  if (refusal) return refusalAnswer(refusal);
  await tx.query('SAVEPOINT dry_run');
  try {
    const target =
      process ??
      (input.payload === undefined
        ? undefined
        : await repo.insertDryRunProcess(tx, input.supplierCode, input.externalAccountNumber, now));
    return answerOf(await createLockedAccount(tx, target, input, now));
  } finally {
    await tx.query('ROLLBACK TO SAVEPOINT dry_run');
  }
}

function answerOf(outcome: Awaited<ReturnType<typeof createLockedAccount>>): Answer {
  if (outcome.outcome === 'refused') return refusalAnswer(outcome.error);
  if (outcome.outcome === 'dry_run_succeeded')
    return { status: 201, body: { external_account_number: outcome.external_account_number, dry_run: true } };
  const { external_account_number, platform_account_number } = outcome;
  return { status: 201, body: { external_account_number, platform_account_number } };
}

/**
 * The first organisation whose instruction uses a Stripe customer's card binds it (as the
 * payment-instruction job does); a dry run only looks.
 */
async function stripeOwnedElsewhere(
  tx: Sql,
  organisationId: number,
  verified: VerifiedInstruction[],
  opts: { bind: boolean },
): Promise<ValidationError | undefined> {
  for (const { index, vendorDetails } of verified) {
    const customer = vendorDetails.customer;
    if (typeof customer !== 'string') continue;
    const attr = `payment_instructions.${index}.reference`;
    const refused = await bindStripeCustomer(tx, customer, organisationId, attr, opts.bind ? 'bind' : 'check');
    if (refused) return refused;
  }
  return undefined;
}

/** The answer of a creation an operator cancelled (the job's, or the dashboard's when it removes the job). */
export const creationCancelled = () =>
  ValidationError.single(
    'non_field_errors',
    'account_import_process_cancelled',
    'The creation of this account was cancelled by an operator. Schedule it again to create it.',
  );

const windowPassed = () =>
  ValidationError.single(
    'schedule_window_end',
    'schedule_window_passed',
    'The schedule window ended before a worker could start the creation. Schedule it again with a later window.',
  );

const stripeNeedsRecordedCustomer = (index: number) =>
  ValidationError.single(
    `payment_instructions.${index}`,
    'stripe_customer_not_recorded',
    'This service takes STRIPE instructions only for accounts whose Stripe customer the platform recorded; a new account has none. Send the instruction to payment-instruction/create once the customer is recorded.',
  );
