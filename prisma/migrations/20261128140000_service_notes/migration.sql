-- Notes the service writes itself, not a migration: today the one pinned note that says which dates a
-- transactions request moved into the open statement period (force_add_to_current_statement). NULL is
-- a note a caller sent. Reconciliation counts only those in notes_count and reports the others apart
-- (service_notes_count), so following the service's own advice leaves no difference.
ALTER TABLE "notes" ADD COLUMN "service_origin" TEXT;

-- Moved-transactions notes written before this column: pinned, no external id, no document, and the
-- body the service writes (shared/transactions/import-plan.ts, movedNoteBody).
UPDATE "notes"
   SET "service_origin" = 'moved_transactions'
 WHERE "is_pinned"
   AND "external_id" IS NULL
   AND "documents" = '[]'::jsonb
   AND "body" LIKE 'Imported transactions dated outside the open statement period %';
