-- The Stripe customer the platform recorded for an account (optional). When set, a STRIPE payment
-- instruction's PaymentMethod must belong to this customer: one Stripe account serves every tenant, so
-- a PaymentMethod id alone could name another customer's card.
ALTER TABLE "accounts" ADD COLUMN "stripe_customer_id" TEXT;
