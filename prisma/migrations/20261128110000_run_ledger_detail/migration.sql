-- A refused item's row keeps the refusal's own words (its `detail`, cut to 255 characters) beside its
-- code and attr, so the support page answers "why was this account refused?" with the refusal itself.
-- Nullable, no default: adding it rewrites nothing, and rows recorded before it have none.
ALTER TABLE "run_ledger" ADD COLUMN "detail" TEXT;
