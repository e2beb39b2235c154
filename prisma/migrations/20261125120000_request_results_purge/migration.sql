-- The scheduled purge drops the answers of requests finished more than a day ago. It looks for rows
-- that still have an answer, oldest first; the partial index holds only those, so it stays as small as
-- a day of requests however long the table grows.
CREATE INDEX "request_results_unpurged_finished_at_idx" ON "request_results"("finished_at") WHERE "body" IS NOT NULL;
