-- A stored answer names the account it was for, the client's run (Data-Import-Run-Id header) and, for
-- a refusal, its error code, so support staff can list an account's recent rejections without
-- decompressing bodies. No foreign key on account_id: accounts are never deleted, and the pending row is
-- written on every queued request, where an extra lookup would cost.
ALTER TABLE "request_results" ADD COLUMN "account_id" INTEGER;
ALTER TABLE "request_results" ADD COLUMN "run_id" TEXT;
ALTER TABLE "request_results" ADD COLUMN "error_code" TEXT;
CREATE INDEX "request_results_account_id_created_at_idx" ON "request_results"("account_id", "created_at");
