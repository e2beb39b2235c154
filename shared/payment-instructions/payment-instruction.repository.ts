// payment_instructions, the Stripe customer bindings, and the account row that serialises writes to
// one account's instructions. Plain SQL: the worker runs these in the transaction that stores the
// request's answer (shared/requests/queued-job.ts), like every queued job's work.
import type { Sql } from '../platform/db';
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
export async function lockAccount(db: Sql, accountId: number): Promise<string | undefined> {
  const { rows } = await db.query<{ platform_account_number: string }>(
    'SELECT platform_account_number FROM accounts WHERE id = $1 FOR UPDATE',
    [accountId],
  );
  return rows[0]?.platform_account_number;
}

/** The Stripe customer the platform recorded for the account, or null when none is. */
export async function findRecordedStripeCustomer(db: Sql, accountId: number): Promise<string | null> {
  const { rows } = await db.query<{ stripe_customer_id: string | null }>(
    'SELECT stripe_customer_id FROM accounts WHERE id = $1',
    [accountId],
  );
  return rows[0]?.stripe_customer_id ?? null;
}

/**
 * Binds the Stripe customer to the organisation unless it is bound already; returns the organisation it
 * is bound to. An uncommitted binding of a concurrent transaction makes the INSERT wait for it, so of two
 * organisations racing for one customer exactly one is bound. The look-up is a statement of its own:
 * under READ COMMITTED it sees the row the INSERT waited for (one statement's snapshot would not).
 */
export async function bindStripeCustomer(db: Sql, customerId: string, organisationId: number): Promise<number> {
  const inserted = await db.query<{ organisation_id: number }>(
    `INSERT INTO stripe_customer_bindings (customer_id, organisation_id) VALUES ($1, $2)
       ON CONFLICT (customer_id) DO NOTHING RETURNING organisation_id`,
    [customerId, organisationId],
  );
  if (inserted.rows.length === 1) return organisationId;
  const { rows } = await db.query<{ organisation_id: number }>(
    'SELECT organisation_id FROM stripe_customer_bindings WHERE customer_id = $1',
    [customerId],
  );
  if (!rows[0]) throw new Error('a Stripe customer binding vanished while it was being read');
  return rows[0].organisation_id;
}

/** The organisation a Stripe customer is bound to, without binding it (a dry run). */
export async function findStripeCustomerOwner(db: Sql, customerId: string): Promise<number | undefined> {
  const { rows } = await db.query<{ organisation_id: number }>(
    'SELECT organisation_id FROM stripe_customer_bindings WHERE customer_id = $1',
    [customerId],
  );
  return rows[0]?.organisation_id;
}

/** The account's active instructions plus the one with this vendor and reference, active or not. */
export async function findRelevantInstructions(
  db: Sql,
  accountId: number,
  vendor: string,
  reference: string,
): Promise<StoredInstruction[]> {
  const { rows } = await db.query<StoredInstruction>(
    `SELECT vendor, reference, is_active AS "isActive" FROM payment_instructions
      WHERE account_id = $1 AND (is_active OR (vendor = $2 AND reference = $3))`,
    [accountId, vendor, reference],
  );
  return rows;
}

export async function insertInstruction(
  db: Sql,
  accountId: number,
  instruction: CreatePaymentInstruction,
  details: VendorDetails,
): Promise<void> {
  await db.query(
    `INSERT INTO payment_instructions
       (account_id, vendor, reference, type, vendor_details, valid_from, use_for_scheduled_payments)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::date, $7)`,
    [
      accountId,
      instruction.vendor,
      instruction.reference,
      instruction.type,
      JSON.stringify(details),
      instruction.valid_from ?? null,
      instruction.use_for_scheduled_payments ?? null,
    ],
  );
}
