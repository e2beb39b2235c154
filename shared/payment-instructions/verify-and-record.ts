// A payment instruction, the worker's half: the vendor is asked outside any transaction (a slow vendor
// must hold no lock and no connection), then the instruction is recorded in the transaction that
// stores the request's answer. payment-instruction.job.ts declares the job that runs both.
import type { Database, Sql } from '../platform/db';
import { accountNotFound, TransientError, ValidationError } from '../platform/errors';
import { refusalAnswer, type Answer } from '../requests/answer';
import { bindCustomer, checkRecordedCustomer, recordedCustomerOf, type OwnershipPolicy } from './customer-ownership';
import * as repo from './payment-instruction.repository';
import type { CreatedPaymentInstruction, CreatePaymentInstruction } from './payment-instruction.schemas';
import type { VendorDetails } from './vendors/vendor-adapter';

export interface Verified {
  instruction: CreatePaymentInstruction;
  /** Absent when the stored instructions already decided the answer and the vendor was not asked. */
  details?: VendorDetails;
}

/**
 * The worker's first half, outside any transaction: asks the vendor unless the account's stored
 * instructions already decide the answer. A vendor rejection throws a ValidationError (the stored 400);
 * a vendor fault throws a TransientError (BullMQ retries). Whose card it may be: customer-ownership.ts.
 */
export async function verifyInstruction(
  deps: {
    db: Database;
    verify: (instruction: CreatePaymentInstruction) => Promise<VendorDetails>;
    policy: OwnershipPolicy;
  },
  accountId: number,
  instruction: CreatePaymentInstruction,
): Promise<Verified> {
  const stored = await repo.findRelevantInstructions(
    deps.db.pool,
    accountId,
    instruction.vendor,
    instruction.reference,
  );
  if (decide(stored, instruction) !== 'new') return { instruction };
  const recorded = await recordedCustomerOf(deps.db.pool, accountId, instruction, deps.policy);
  const details = await deps.verify(instruction);
  checkRecordedCustomer(recorded, details);
  return { instruction, details };
}

/** The worker's second half, in the transaction that stores the answer. */
export async function recordInstruction(
  tx: Sql,
  request: { accountId: number; organisationId: number },
  { instruction, details }: Verified,
): Promise<Answer> {
  const { accountId } = request;
  const platformAccountNumber = await repo.lockAccount(tx, accountId);
  if (platformAccountNumber === undefined) return refusalAnswer(accountNotFound());
  // Decided again under the lock: a concurrent request for this account may have committed meanwhile.
  const stored = await repo.findRelevantInstructions(tx, accountId, instruction.vendor, instruction.reference);
  const decision = decide(stored, instruction);
  if (decision === 'conflict') return refusalAnswer(activeInstructionConflict());
  if (decision === 'new') {
    // Only if an instruction seen before the lock has vanished since; the retry asks the vendor.
    if (!details)
      throw new TransientError(
        'instruction_changed',
        "The account's instructions changed. Retry the request as it is.",
      );
    const refusal = await undoneOnDryRun(tx, instruction.dry_run, async () => {
      const bound = await bindCustomer(tx, request.organisationId, instruction, details);
      if (!bound) await repo.insertInstruction(tx, accountId, instruction, details);
      return bound;
    });
    if (refusal) return refusalAnswer(refusal);
  }
  const body: CreatedPaymentInstruction = {
    platform_account_number: platformAccountNumber,
    reference: instruction.reference,
  };
  return { status: 201, body };
}

/**
 * A dry run writes as the real call would inside a savepoint, then rolls back to it: the same checks
 * (the customer binding included), nothing kept; the stored answer is still written after it.
 */
async function undoneOnDryRun<T>(tx: Sql, dryRun: boolean, work: () => Promise<T>): Promise<T> {
  if (!dryRun) return work();
  await tx.query('SAVEPOINT payment_instruction_dry_run');
  const result = await work();
  await tx.query('ROLLBACK TO SAVEPOINT payment_instruction_dry_run');
  return result;
}

/** Same vendor and reference stored: nothing to add (201 again). Another active instruction: refused. */
function decide(
  stored: repo.StoredInstruction[],
  instruction: CreatePaymentInstruction,
): 'exists' | 'conflict' | 'new' {
  if (stored.some((s) => s.vendor === instruction.vendor && s.reference === instruction.reference)) return 'exists';
  return stored.some((s) => s.isActive) ? 'conflict' : 'new';
}

const activeInstructionConflict = () =>
  ValidationError.single(
    'non_field_errors',
    'account_already_has_active_instruction',
    'Account already has an active instruction.',
  );
