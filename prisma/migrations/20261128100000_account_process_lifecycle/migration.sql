-- Account import processes as one state machine (shared/account-import/process-lifecycle.ts).
-- held_by: the request (result id) of the creation job that holds an IN_PROGRESS process, with
-- held_at; a hold whose job no longer exists is released by the sweep. scheduled_request_id: the v2
-- schedule that is the process's current one (a re-schedule replaces it; an older job creates nothing).
ALTER TABLE "account_import_processes" ADD COLUMN "held_by" TEXT;
ALTER TABLE "account_import_processes" ADD COLUMN "held_at" TIMESTAMPTZ(3);
ALTER TABLE "account_import_processes" ADD COLUMN "scheduled_request_id" TEXT;

-- Products carry the supply they price (ELECTRICITY or GAS; null: not said, any meter point).
ALTER TABLE "products" ADD COLUMN "supply_type" TEXT;

-- A v2 process's current schedule is its latest SCHEDULED event's request.
UPDATE "account_import_processes" p
   SET "scheduled_request_id" = e.data->>'request_id'
  FROM (SELECT DISTINCT ON (process_id) process_id, data
          FROM "account_import_process_events"
         WHERE event = 'EVENT_ACCOUNT_IMPORT_PROCESS_SCHEDULED'
         ORDER BY process_id, id DESC) e
 WHERE e.process_id = p.id;

-- Processes a job left IN_PROGRESS before holds were recorded: held by no live job, so the sweep
-- releases them (ERRORED, creation_interrupted) once it runs.
UPDATE "account_import_processes" p
   SET "held_by" = 'unrecorded', "held_at" = p.modified_at
 WHERE p.status = 'IN_PROGRESS'
   AND NOT EXISTS (SELECT 1 FROM "accounts" a WHERE a.process_id = p.id);

-- state follows status (process-lifecycle.ts STATE_OF) for every process without its account.
UPDATE "account_import_processes" p
   SET "state" = (CASE p.status WHEN 'IN_PROGRESS' THEN 'IN_PROGRESS' WHEN 'ERRORED' THEN 'FAILED'
                                WHEN 'CANCELLED' THEN 'FAILED' WHEN 'PROCESSED' THEN 'IMPORTED'
                                ELSE 'STAGED' END)::"ImportState"
 WHERE p.payload IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "accounts" a WHERE a.process_id = p.id);
