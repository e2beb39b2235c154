-- Initial schema. Written by hand to match prisma/schema.prisma (names, types, indexes).

CREATE TYPE "SupplierStatus" AS ENUM ('Ongoing', 'Paused', 'Complete');
CREATE TYPE "ImportState" AS ENUM ('STAGED', 'IN_PROGRESS', 'IMPORTED', 'FAILED');

CREATE TABLE "import_suppliers" (
    "code" TEXT NOT NULL,
    "status" "SupplierStatus" NOT NULL DEFAULT 'Ongoing',
    "document_root" TEXT NOT NULL DEFAULT '',
    "send_emails" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "import_suppliers_pkey" PRIMARY KEY ("code")
);

CREATE TABLE "organisations" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "organisations_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "organisations_name_key" ON "organisations"("name");

CREATE TABLE "organisation_suppliers" (
    "organisation_id" INTEGER NOT NULL,
    "supplier_code" TEXT NOT NULL,
    CONSTRAINT "organisation_suppliers_pkey" PRIMARY KEY ("organisation_id", "supplier_code")
);

CREATE TABLE "api_keys" (
    "id" SERIAL NOT NULL,
    "organisation_id" INTEGER NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "label" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

CREATE TABLE "refresh_tokens" (
    "id" SERIAL NOT NULL,
    "organisation_id" INTEGER NOT NULL,
    "family" UUID NOT NULL,
    "hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "refresh_tokens_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "refresh_tokens_hash_key" ON "refresh_tokens"("hash");
CREATE INDEX "refresh_tokens_family_idx" ON "refresh_tokens"("family");

CREATE TABLE "account_import_processes" (
    "id" SERIAL NOT NULL,
    "supplier_code" TEXT NOT NULL,
    "external_account_number" TEXT NOT NULL,
    "state" "ImportState" NOT NULL DEFAULT 'STAGED',
    "staged_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "account_import_processes_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "account_import_processes_supplier_code_external_account_number_key"
    ON "account_import_processes"("supplier_code", "external_account_number");

CREATE TABLE "accounts" (
    "id" SERIAL NOT NULL,
    "process_id" INTEGER NOT NULL,
    "platform_account_number" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "accounts_process_id_key" ON "accounts"("process_id");
CREATE UNIQUE INDEX "accounts_platform_account_number_key" ON "accounts"("platform_account_number");

CREATE TABLE "statement_periods" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "starts_on" DATE NOT NULL,
    "ends_on" DATE,
    "is_open" BOOLEAN NOT NULL DEFAULT true,
    CONSTRAINT "statement_periods_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "statement_periods_account_id_idx" ON "statement_periods"("account_id");
-- Not expressible in schema.prisma: at most one open period per account.
CREATE UNIQUE INDEX "statement_periods_one_open_per_account"
    ON "statement_periods"("account_id") WHERE "is_open";

CREATE TABLE "notes" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "body" TEXT,
    "documents" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "is_pinned" BOOLEAN NOT NULL DEFAULT false,
    "unpin_at" TIMESTAMPTZ(3),
    "is_archived" BOOLEAN NOT NULL DEFAULT false,
    "external_id" TEXT,
    "inserted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "notes_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "notes_account_id_idx" ON "notes"("account_id");

CREATE TABLE "transactions" (
    "id" BIGSERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "transaction_id" TEXT NOT NULL,
    "transaction_date" DATE NOT NULL,
    "original_date" DATE,
    "amount" DECIMAL(20,10) NOT NULL,
    "type" TEXT NOT NULL,
    "reason" TEXT,
    "display_note" TEXT,
    "note" TEXT,
    "reference" TEXT,
    "payment_type" TEXT,
    "product_code" TEXT,
    "line_items" JSONB,
    "tax_items" JSONB,
    "description" TEXT,
    "submitted" JSONB NOT NULL,
    "request_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "transactions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "transactions_account_id_transaction_id_idx" ON "transactions"("account_id", "transaction_id");

CREATE TABLE "historical_statements" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "statement_id" TEXT NOT NULL,
    "bill_period_from_date" DATE NOT NULL,
    "bill_period_to_date" DATE NOT NULL,
    "issued_date" DATE,
    "number" TEXT,
    "gross_amount" BIGINT,
    "statement_path" TEXT,
    "storage_location" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "historical_statements_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "historical_statements_account_id_statement_id_key"
    ON "historical_statements"("account_id", "statement_id");

CREATE TABLE "payment_instructions" (
    "id" SERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "vendor" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "vendor_details" JSONB NOT NULL DEFAULT '{}',
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "payment_instructions_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "payment_instructions_account_id_vendor_reference_key"
    ON "payment_instructions"("account_id", "vendor", "reference");
-- Not expressible in schema.prisma: at most one active instruction per account.
CREATE UNIQUE INDEX "payment_instructions_one_active_per_account"
    ON "payment_instructions"("account_id") WHERE "is_active";

CREATE TABLE "request_results" (
    "id" TEXT NOT NULL,
    "organisation_id" INTEGER NOT NULL,
    "endpoint" TEXT NOT NULL,
    "idempotency_key" TEXT,
    "body_hash" TEXT NOT NULL,
    "http_status" INTEGER,
    "body" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    CONSTRAINT "request_results_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "request_results_organisation_id_endpoint_idempotency_key_key"
    ON "request_results"("organisation_id", "endpoint", "idempotency_key");

ALTER TABLE "organisation_suppliers" ADD CONSTRAINT "organisation_suppliers_organisation_id_fkey"
    FOREIGN KEY ("organisation_id") REFERENCES "organisations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "organisation_suppliers" ADD CONSTRAINT "organisation_suppliers_supplier_code_fkey"
    FOREIGN KEY ("supplier_code") REFERENCES "import_suppliers"("code") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organisation_id_fkey"
    FOREIGN KEY ("organisation_id") REFERENCES "organisations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_organisation_id_fkey"
    FOREIGN KEY ("organisation_id") REFERENCES "organisations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "account_import_processes" ADD CONSTRAINT "account_import_processes_supplier_code_fkey"
    FOREIGN KEY ("supplier_code") REFERENCES "import_suppliers"("code") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_process_id_fkey"
    FOREIGN KEY ("process_id") REFERENCES "account_import_processes"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "statement_periods" ADD CONSTRAINT "statement_periods_account_id_fkey"
    FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "notes" ADD CONSTRAINT "notes_account_id_fkey"
    FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_account_id_fkey"
    FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "historical_statements" ADD CONSTRAINT "historical_statements_account_id_fkey"
    FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "payment_instructions" ADD CONSTRAINT "payment_instructions_account_id_fkey"
    FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "request_results" ADD CONSTRAINT "request_results_organisation_id_fkey"
    FOREIGN KEY ("organisation_id") REFERENCES "organisations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
