-- What a client's run declared it is sending when it started (PUT runs/<run_id>/declaration/): its kind,
-- its files with their line counts, and the items in all. With the run ledger's counts this gives the
-- run's percent done, rate and ETA. One row per organisation and run id; a resumed run declares again.
CREATE TABLE "run_declarations" (
    "organisation_id" INTEGER NOT NULL,
    "run_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "items" INTEGER NOT NULL,
    "files" JSONB NOT NULL DEFAULT '[]',
    "declared_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "run_declarations_pkey" PRIMARY KEY ("organisation_id", "run_id")
);
-- An organisation's oldest declarations go first when it holds too many (shared/run-progress/).
CREATE INDEX "run_declarations_organisation_id_declared_at_idx" ON "run_declarations"("organisation_id", "declared_at");
