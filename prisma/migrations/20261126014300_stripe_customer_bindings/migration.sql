-- The organisation that first made a Stripe customer's PaymentMethod one of its payment instructions.
-- One Stripe account serves every tenant, so a PaymentMethod id alone could name another tenant's
-- customer's card: an instruction whose card belongs to a customer bound to another organisation is
-- refused. The primary key makes the first binder win a race (INSERT … ON CONFLICT DO NOTHING waits for
-- a concurrent binder's transaction). No foreign key to organisations on purpose: a binding outlives its
-- organisation, so a removed tenant's customers are not freed for another tenant to take.
CREATE TABLE "stripe_customer_bindings" (
    "customer_id" TEXT NOT NULL,
    "organisation_id" INTEGER NOT NULL,
    "bound_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "stripe_customer_bindings_pkey" PRIMARY KEY ("customer_id")
);
