-- Optional contract fields of a payment instruction, stored as submitted.
ALTER TABLE "payment_instructions" ADD COLUMN "valid_from" DATE;
ALTER TABLE "payment_instructions" ADD COLUMN "use_for_scheduled_payments" BOOLEAN;
