-- Account creation through the API (issue 19): the staged account, the process's v2 status and
-- schedule, its events, the operations teams accounts are linked to, and the meter points each
-- supplier's accounts supply (one live account per meter point and supplier).
CREATE TYPE "ImportStatus" AS ENUM (
    'PENDING', 'IN_PROGRESS', 'PROCESSED', 'ERRORED', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED', 'CANCELLED'
);

ALTER TABLE "account_import_processes"
    ADD COLUMN "payload" JSONB,
    ADD COLUMN "status" "ImportStatus" NOT NULL DEFAULT 'PENDING',
    ADD COLUMN "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    ADD COLUMN "modified_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    ADD COLUMN "latest_error" JSONB,
    ADD COLUMN "schedule_window_start" TIMESTAMPTZ(3),
    ADD COLUMN "schedule_window_end" TIMESTAMPTZ(3),
    ADD COLUMN "is_dry_run" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "operations_team_name" TEXT;

-- Processes from before: their status follows their state, their times their staging.
UPDATE "account_import_processes"
   SET "created_at" = "staged_at",
       "modified_at" = "staged_at",
       "status" = (CASE "state"
                     WHEN 'IMPORTED' THEN 'PROCESSED'
                     WHEN 'IN_PROGRESS' THEN 'IN_PROGRESS'
                     WHEN 'FAILED' THEN 'ERRORED'
                     ELSE 'PENDING' END)::"ImportStatus";

CREATE TABLE "account_import_process_events" (
    "id" BIGSERIAL NOT NULL,
    "process_id" INTEGER NOT NULL,
    "event" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "data" JSONB,
    CONSTRAINT "account_import_process_events_pkey" PRIMARY KEY ("id")
);

-- The latest event of a process is the one with the highest id.
CREATE INDEX "account_import_process_events_process_id_id_idx" ON "account_import_process_events"("process_id", "id");

ALTER TABLE "account_import_process_events" ADD CONSTRAINT "account_import_process_events_process_id_fkey"
    FOREIGN KEY ("process_id") REFERENCES "account_import_processes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "operations_teams" (
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "operations_teams_pkey" PRIMARY KEY ("name")
);

CREATE TABLE "meter_points" (
    "supplier_code" TEXT NOT NULL,
    "identifier" TEXT NOT NULL,
    "supply_type" TEXT NOT NULL,
    "account_id" INTEGER NOT NULL,
    CONSTRAINT "meter_points_pkey" PRIMARY KEY ("supplier_code", "identifier")
);

CREATE INDEX "meter_points_account_id_idx" ON "meter_points"("account_id");

ALTER TABLE "meter_points" ADD CONSTRAINT "meter_points_supplier_code_fkey"
    FOREIGN KEY ("supplier_code") REFERENCES "import_suppliers"("code") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "meter_points" ADD CONSTRAINT "meter_points_account_id_fkey"
    FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
