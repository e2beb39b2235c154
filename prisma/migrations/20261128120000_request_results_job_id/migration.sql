-- The queued job that carries a request, when it is not the request's own (a burst: one job for the
-- requests that arrived together, docs/decisions/0014-one-job-per-burst.md). NULL: the job's id is the
-- row's id. The lost-job sweep reads it to tell a request whose burst still runs from one whose job is
-- gone; it is written with the pending row, so no statement is added.
ALTER TABLE "request_results" ADD COLUMN "job_id" TEXT;
