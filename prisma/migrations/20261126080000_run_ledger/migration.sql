-- The run ledger: what every write request (notes, statements, transactions, payment instructions,
-- account creation) did to each of its items, with the client's run (Data-Import-Run-Id header) when it
-- sent one. One request writes a handful of rows in one multi-row insert: one per outcome for the items
-- that went through, one per refused item's field error (code and attr), bounded per request.
-- No foreign keys: rows are written on every write, where extra look-ups would cost, and they name the
-- account as the client did (a refusal may name an account that does not exist).
CREATE TABLE "run_ledger" (
    "id" BIGSERIAL NOT NULL,
    "organisation_id" INTEGER NOT NULL,
    "run_id" TEXT,
    "request_id" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "supplier_code" TEXT,
    "external_account_number" TEXT,
    "http_status" INTEGER NOT NULL,
    "dry_run" BOOLEAN NOT NULL DEFAULT false,
    "outcome" TEXT NOT NULL,
    "code" TEXT,
    "attr" TEXT,
    "items" INTEGER NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "run_ledger_pkey" PRIMARY KEY ("id")
);
-- GET /v1/data-import/runs/<run_id>/: one organisation's run.
CREATE INDEX "run_ledger_run_id_organisation_id_idx" ON "run_ledger"("run_id", "organisation_id") WHERE "run_id" IS NOT NULL;
-- The support page: a supplier's runs and refusals, an account's refusals.
CREATE INDEX "run_ledger_supplier_code_external_account_number_idx" ON "run_ledger"("supplier_code", "external_account_number");
-- Retention: the hourly maintenance job deletes rows older than RUN_LEDGER_RETENTION_DAYS, oldest first.
-- Rows arrive in time order, so a BRIN index (a few pages, next to nothing to maintain) finds them.
CREATE INDEX "run_ledger_recorded_at_idx" ON "run_ledger" USING BRIN ("recorded_at");
