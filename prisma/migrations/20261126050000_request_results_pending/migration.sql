-- The maintenance run looks for requests still pending after their wait whose job vanished from Redis
-- (shared/requests/answer-lost-jobs.ts), oldest first. Pending rows are few at any time; the partial
-- index holds only those, so the look-up stays small however long the table grows.
CREATE INDEX "request_results_pending_created_at_idx" ON "request_results"("created_at") WHERE "finished_at" IS NULL;
