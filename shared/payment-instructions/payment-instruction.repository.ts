// payment_instructions, and the account row that serialises writes to one account's instructions.
import type { DbClient } from '../platform/db';
import type { VendorDetails } from './vendors/vendor-adapter';
import type { CreatePaymentInstruction } from './payment-instruction.schemas';

export interface StoredInstruction {
  vendor: string;
  reference: string;
  isActive: boolean;
}

/**
 * Locks the account row until the transaction ends, so two requests for one account decide one after
 * the other; returns its platform account number, or undefined when the account is gone.
 */
export async function lockAccount(db: DbClient, accountId: number): Promise<string | undefined> {
  const rows = await db.$queryRaw<{ platform_account_number: string }[]>`
    SELECT platform_account_number FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  return rows[0]?.platform_account_number;
}

/** The Stripe customer the platform recorded for the account, or null when none is. */
export async function findRecordedStripeCustomer(db: DbClient, accountId: number): Promise<string | null> {
  const account = await db.account.findUnique({ where: { id: accountId }, select: { stripeCustomerId: true } });
  return account?.stripeCustomerId ?? null;
}

/**
 * Binds the Stripe customer to the organisation unless it is bound already; returns the organisation it
 * is bound to. An uncommitted binding of a concurrent transaction makes the INSERT wait for it, so of two
 * organisations racing for one customer exactly one is bound. The look-up is a statement of its own:
 * under READ COMMITTED it sees the row the INSERT waited for (one statement's snapshot would not).
 */
export async function bindStripeCustomer(db: DbClient, customerId: string, organisationId: number): Promise<number> {
  const inserted = await db.$executeRaw`
    INSERT INTO stripe_customer_bindings (customer_id, organisation_id) VALUES (${customerId}, ${organisationId})
    ON CONFLICT (customer_id) DO NOTHING`;
  if (inserted === 1) return organisationId;
  const bound = await db.stripeCustomerBinding.findUniqueOrThrow({
    where: { customerId },
    select: { organisationId: true },
  });
  return bound.organisationId;
}

/** The account's active instructions plus the one with this vendor and reference, active or not. */
export async function findRelevantInstructions(
  db: DbClient,
  accountId: number,
  vendor: string,
  reference: string,
): Promise<StoredInstruction[]> {
  return db.paymentInstruction.findMany({
    where: { accountId, OR: [{ isActive: true }, { vendor, reference }] },
    select: { vendor: true, reference: true, isActive: true },
  });
}

export async function insertInstruction(
  db: DbClient,
  accountId: number,
  instruction: CreatePaymentInstruction,
  details: VendorDetails,
): Promise<void> {
  await db.paymentInstruction.create({
    data: {
      accountId,
      vendor: instruction.vendor,
      reference: instruction.reference,
      type: instruction.type,
      vendorDetails: details,
      validFrom: instruction.valid_from ? new Date(`${instruction.valid_from}T00:00:00Z`) : null,
      useForScheduledPayments: instruction.use_for_scheduled_payments ?? null,
    },
  });
}
