// The account-creation jobs: a staged process becomes an account in one transaction with the request's
// answer (shared/requests/queued-job.ts), so a redelivered job, two concurrent process calls or a v1
// process racing a v2 schedule create exactly one account (the process row's lock decides; see
// create-account.ts). Two job kinds share the queue and the code: the v1 process call, whose request
// waits for the answer, and the v2 schedule, a job that waits in BullMQ for its window's start while
// its request has already answered.
//
// Before the transaction, per job: the process is marked IN_PROGRESS (event STARTED) and the staged
// account's STRIPE instructions are verified with the vendor through its circuit breaker.
import { z } from 'zod';
import type { Config } from '../platform/config';
import type { Sql } from '../platform/db';
import { TransientError, ValidationError } from '../platform/errors';
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
import * as repo from './creation-status.repository';
import { createLockedAccount, lockProcess, markCreationStarted, type VerifiedInstruction } from './create-account';

/** What an account-creation job carries. `window_end`: a v2 schedule's, past which the job no longer creates. */
const AccountCreationPayload = z.strictObject({
  import_supplier_code: z.string().min(1).max(64),
  external_account_number: z.string().min(1).max(128),
  operations_team_name: z.string().min(1).max(255).optional(),
  dry_run: z.boolean().default(false),
  window_end: z.iso.datetime({ offset: true }).max(40).optional(),
});
export type AccountCreation = z.output<typeof AccountCreationPayload>;

const accountCreationPayload: JobPayload<AccountCreation> = {
  version: 1,
  validate: (json) => parseOrThrow(AccountCreationPayload, json),
  fromJob: (json) => json as AccountCreation,
};

interface Prepared {
  documentBucket: string;
  verifiedInstructions: VerifiedInstruction[];
  /** Set when a STRIPE instruction is another organisation's customer's: the answer, without creating. */
  refusal?: ValidationError;
}

const common = {
  queue: 'accounts',
  payload: accountCreationPayload,
  retry: { attempts: 5, backoff: { type: 'exponential' as const, delay: 200 } },
  cleanUp: CLEAN_UP,
  concurrency: (config: Pick<Config, 'WORKER_CONCURRENCY'>) => config.WORKER_CONCURRENCY,
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

/** Outside the transaction: IN_PROGRESS and STARTED, then the vendor for each STRIPE instruction. */
async function startCreation(request: QueuedRequest<AccountCreation>, ctx: JobContext): Promise<Prepared> {
  const { import_supplier_code: supplier, external_account_number: external, dry_run } = request.payload;
  const started = { supplierCode: supplier, externalAccountNumber: external, dryRun: dry_run };
  // One statement, committed on its own: the status endpoints show the running job.
  const start = await markCreationStarted(ctx.db.pool, started, new Date());
  const prepared: Prepared = { documentBucket: ctx.config.DOCUMENT_BUCKET, verifiedInstructions: [] };
  const stripe = start?.stripeInstructions ?? [];
  if (stripe.length > 0 && ctx.config.STRIPE_REQUIRE_RECORDED_CUSTOMER) {
    return { ...prepared, refusal: stripeNeedsRecordedCustomer(stripe[0]!.index) };
  }
  for (const { index, reference, type } of stripe) {
    const details = await verifyAtVendor(
      ctx.config,
      { vendor: 'STRIPE', type, reference },
      request.organisationId,
      ctx.config.VENDOR_TIMEOUT_MS,
    );
    prepared.verifiedInstructions.push({ index, vendorDetails: details });
  }
  return prepared;
}

/**
 * In the group's transaction: each creation in turn (they are of different accounts). In a group of
 * several (`locks.wait` false) a process row another transaction holds (a creation of the same account
 * by the other job kind, a schedule, an operator's cancel) fails the group at once instead of holding
 * up its other accounts; its jobs are then committed alone, each waiting for its own row.
 */
async function createInGroup(
  tx: Sql,
  requests: PreparedRequest<AccountCreation, Prepared>[],
  now: Date,
  locks: { wait: boolean },
): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const { request, prepared } of requests) answers.push(await createOne(tx, request, prepared, now, locks));
  return answers;
}

async function createOne(
  tx: Sql,
  request: QueuedRequest<AccountCreation>,
  prepared: Prepared,
  now: Date,
  locks: { wait: boolean },
): Promise<Answer> {
  const p = request.payload;
  const input = {
    supplierCode: p.import_supplier_code,
    externalAccountNumber: p.external_account_number,
    operationsTeamName: p.operations_team_name,
    dryRun: p.dry_run,
    resultId: request.resultId,
    documentBucket: prepared.documentBucket,
    verifiedInstructions: prepared.verifiedInstructions,
  };
  const process = await lockProcess(tx, input, locks);
  const refusal =
    prepared.refusal ??
    (process?.status === 'CANCELLED' ? creationCancelled() : undefined) ??
    (p.window_end !== undefined && now.getTime() > Date.parse(p.window_end) ? windowPassed() : undefined) ??
    (await stripeOwnedElsewhere(tx, request.organisationId, prepared.verifiedInstructions));
  if (refusal) {
    if (process && process.status !== 'CANCELLED')
      await repo.markRefusedBeforeCreation(tx, process.id, p.dry_run, refusal, now);
    return refusalAnswer(refusal);
  }
  const outcome = await createLockedAccount(tx, process, input, now);
  if (outcome.outcome === 'refused') return refusalAnswer(outcome.error);
  const body = {
    external_account_number: outcome.external_account_number,
    platform_account_number: outcome.platform_account_number,
    ...(outcome.outcome === 'dry_run_succeeded' ? { dry_run: true } : {}),
  };
  return { status: 201, body };
}

/** The first organisation whose instruction uses a Stripe customer's card binds it (as the payment-instruction job does). */
async function stripeOwnedElsewhere(
  tx: Sql,
  organisationId: number,
  verified: VerifiedInstruction[],
): Promise<ValidationError | undefined> {
  for (const { index, vendorDetails } of verified) {
    const customer = vendorDetails.customer;
    if (typeof customer !== 'string') continue;
    const refused = await bindStripeCustomer(tx, customer, organisationId, `payment_instructions.${index}.reference`);
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
