// Whose card may become an account's STRIPE instruction. One Stripe account serves every tenant, so a
// PaymentMethod id that exists may be another tenant's customer's card; three rules stand in the way:
// - recorded customer: when the platform recorded the account's Stripe customer, the card must be
//   attached to that customer;
// - strict setting (STRIPE_REQUIRE_RECORDED_CUSTOMER): an account without a recorded customer takes no
//   STRIPE instruction at all;
// - binding: the first organisation whose instruction uses a customer's card binds that customer; a card
//   of a customer bound to another organisation is refused.
// No refusal names a customer or an organisation, and a binding refuses the same way whether its
// organisation still exists or not (it is never looked up).
import type { Sql } from '../platform/db';
import { ValidationError } from '../platform/errors';
import * as repo from './payment-instruction.repository';
import type { CreatePaymentInstruction } from './payment-instruction.schemas';
import type { VendorDetails } from './vendors/vendor-adapter';

export interface OwnershipPolicy {
  requireRecordedCustomer: boolean;
}

/**
 * Before the vendor is asked: the account's recorded Stripe customer (null when none is, or for
 * another vendor). Under the strict setting an account without one is refused here, with no vendor call.
 */
export async function recordedCustomerOf(
  db: Sql,
  accountId: number,
  instruction: CreatePaymentInstruction,
  policy: OwnershipPolicy,
): Promise<string | null> {
  if (instruction.vendor !== 'STRIPE') return null;
  const recorded = await repo.findRecordedStripeCustomer(db, accountId);
  if (recorded === null && policy.requireRecordedCustomer) {
    throw ValidationError.single(
      'non_field_errors',
      'stripe_customer_not_recorded',
      'No Stripe customer is recorded for this account, and this service takes STRIPE instructions only for accounts that have one.',
    );
  }
  return recorded;
}

/** After the vendor answered: a recorded customer must be the card's. */
export function checkRecordedCustomer(recorded: string | null, details: VendorDetails): void {
  if (recorded !== null && details.customer !== recorded) {
    throw ValidationError.single(
      'reference',
      'payment_method_customer_mismatch',
      'The PaymentMethod is not attached to the Stripe customer recorded for this account.',
    );
  }
}

/**
 * In the transaction that stores the instruction: binds the card's customer to the organisation, or
 * returns the refusal when another organisation holds it.
 */
export async function bindCustomer(
  tx: Sql,
  organisationId: number,
  instruction: CreatePaymentInstruction,
  details: VendorDetails,
): Promise<ValidationError | undefined> {
  if (instruction.vendor !== 'STRIPE' || typeof details.customer !== 'string') return undefined;
  return bindStripeCustomer(tx, details.customer, organisationId, 'reference');
}

/**
 * The binding rule for a card's Stripe customer, for every writer of STRIPE instructions (this endpoint
 * and account creation): binds `customer` to the organisation, or returns the refusal at `attr` when
 * another organisation holds it. A dry run only `check`s: it reads the binding and leaves it unmade.
 */
export async function bindStripeCustomer(
  tx: Sql,
  customer: string,
  organisationId: number,
  attr: string,
  mode: 'bind' | 'check' = 'bind',
): Promise<ValidationError | undefined> {
  const owner =
    mode === 'bind'
      ? await repo.bindStripeCustomer(tx, customer, organisationId)
      : ((await repo.findStripeCustomerOwner(tx, customer)) ?? organisationId);
  if (owner === organisationId) return undefined;
  return ValidationError.single(
    attr,
    'payment_method_customer_of_another_organisation',
    'The PaymentMethod belongs to a Stripe customer whose cards another organisation uses.',
  );
}
