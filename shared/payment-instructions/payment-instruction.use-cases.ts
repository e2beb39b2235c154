// POST /v1/data-import/payment-instruction/create/ in two halves. The API validates, resolves the
// account and queues; the worker asks the vendor (outside any transaction: a slow vendor must hold no
// lock and no connection), then records the instruction and the answer in one transaction.
import { parseIdempotencyKey } from '../requests/idempotency-key';
import { resolveWritableAccount } from '../accounts/account.use-cases';
import type { Database, DbClient } from '../platform/db';
import { accountNotFound, AppError, TransientError, ValidationError } from '../platform/errors';
import type { QueuedRequestData } from '../platform/jobs';
import { parseOrThrow } from '../platform/validation';
import { completeRequest, isRequestFinished } from '../requests/queued-job';
import type { QueuedRequestOutcome, QueuedRequests } from '../requests/queued-request';
import * as repo from './payment-instruction.repository';
import {
  CreatePaymentInstructionRequest,
  type CreatedPaymentInstruction,
  type CreatePaymentInstruction,
} from './payment-instruction.schemas';
import type { VendorDetails } from './vendors/vendor-adapter';

export async function requestPaymentInstruction(
  deps: { db: Database; queued: QueuedRequests },
  organisationId: number,
  body: unknown,
  idempotencyKey: string | undefined,
  traceId?: string,
): Promise<QueuedRequestOutcome> {
  // Bad input of any kind answers 400 before the account is looked up (as on every endpoint).
  const key = parseIdempotencyKey(idempotencyKey);
  const instruction = parseOrThrow(CreatePaymentInstructionRequest, body);
  const account = await resolveWritableAccount(deps.db, organisationId, instruction);
  return deps.queued.submit({
    job: 'createPaymentInstruction',
    endpoint: 'payment-instruction/create',
    organisationId,
    accountId: account.accountId,
    idempotencyKey: key,
    traceId,
    payload: instruction,
  });
}

export interface CreateDeps {
  db: Database;
  verify: (instruction: CreatePaymentInstruction) => Promise<VendorDetails>;
}

interface Verified {
  instruction: CreatePaymentInstruction;
  /** Absent when the stored instructions already decided the answer and the vendor was not asked. */
  details?: VendorDetails;
}

/**
 * The worker's half. Vendor rejections become a stored 400; vendor faults throw (BullMQ retries), and
 * the processor decides what the last failure answers.
 */
export async function createPaymentInstruction(deps: CreateDeps, job: QueuedRequestData): Promise<void> {
  // A job redelivered after its request was answered must not call the vendor again.
  if (await isRequestFinished(deps.db, job.requestId)) return;
  const verified = await verify(deps, job).catch(rejectionOutcome);
  await completeRequest(deps.db, job.requestId, async (tx) =>
    'status' in verified ? verified : recordInstruction(tx, job.accountId, verified),
  );
}

async function verify(deps: CreateDeps, job: QueuedRequestData): Promise<Verified> {
  const instruction = parseOrThrow(CreatePaymentInstructionRequest, job.payload);
  const stored = await repo.findRelevantInstructions(deps.db.prisma, job.accountId, instruction.vendor, instruction.reference);
  if (decide(stored, instruction) !== 'new') return { instruction };
  const details = await deps.verify(instruction);
  await checkOwnership(deps.db.prisma, job.accountId, instruction, details);
  return { instruction, details };
}

/**
 * One Stripe account serves every tenant, so a valid PaymentMethod id may be another customer's card.
 * What can be checked is checked: when the platform recorded the account's Stripe customer, the
 * PaymentMethod must be attached to that customer. Without a recorded customer nothing here can tell.
 */
async function checkOwnership(db: DbClient, accountId: number, instruction: CreatePaymentInstruction, details: VendorDetails): Promise<void> {
  if (instruction.vendor !== 'STRIPE') return;
  const recorded = await repo.findRecordedStripeCustomer(db, accountId);
  if (recorded !== null && details.customer !== recorded) {
    // Neither customer id is named: the caller learns only that this card is not the account's.
    throw ValidationError.single(
      'reference',
      'payment_method_customer_mismatch',
      'The PaymentMethod is not attached to the Stripe customer recorded for this account.',
    );
  }
}

async function recordInstruction(tx: DbClient, accountId: number, { instruction, details }: Verified): Promise<QueuedRequestOutcome> {
  const platformAccountNumber = await repo.lockAccount(tx, accountId);
  if (platformAccountNumber === undefined) return errorOutcome(accountNotFound());
  // Decided again under the lock: a concurrent request for this account may have committed meanwhile.
  const stored = await repo.findRelevantInstructions(tx, accountId, instruction.vendor, instruction.reference);
  const decision = decide(stored, instruction);
  if (decision === 'conflict') return rejectionOutcome(activeInstructionConflict());
  if (decision === 'new') {
    // Only if an instruction seen before the lock has vanished since; the retry asks the vendor.
    if (!details) throw new TransientError('instruction_changed', "The account's instructions changed. Retry the request as it is.");
    await repo.insertInstruction(tx, accountId, instruction, details);
  }
  const body: CreatedPaymentInstruction = { platform_account_number: platformAccountNumber, reference: instruction.reference };
  return { status: 201, body };
}

/** Same vendor and reference stored: nothing to add (201 again). Another active instruction: refused. */
function decide(stored: repo.StoredInstruction[], instruction: CreatePaymentInstruction): 'exists' | 'conflict' | 'new' {
  if (stored.some((s) => s.vendor === instruction.vendor && s.reference === instruction.reference)) return 'exists';
  return stored.some((s) => s.isActive) ? 'conflict' : 'new';
}

const activeInstructionConflict = () =>
  ValidationError.single(
    'non_field_errors',
    'account_already_has_active_instruction',
    'Account already has an active instruction.',
  );

function rejectionOutcome(err: unknown): QueuedRequestOutcome {
  if (!(err instanceof ValidationError)) throw err;
  return { status: 400, body: { detail: err.message, code: err.code, errors: err.errors } };
}

function errorOutcome(err: AppError): QueuedRequestOutcome {
  return { status: err.status, body: { detail: err.message, code: err.code } };
}

/** What a request answers when its retries are exhausted or can no longer finish in time: 500, retry as-is. */
export function retryAsIsOutcome(err: unknown): QueuedRequestOutcome {
  if (err instanceof TransientError) return errorOutcome(err);
  return {
    status: 500,
    body: { detail: 'An unexpected error occurred. Retry the request as it is.', code: 'server_error' },
  };
}
