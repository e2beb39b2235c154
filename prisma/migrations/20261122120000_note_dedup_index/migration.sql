-- Note dedup (spec: a note is created only when no note on the account has the same body, and the
-- same created_at when one is given) must be one indexed lookup per batch. A body can exceed what a
-- B-tree entry holds (~2.7 kB), so the index carries an md5 of the key and queries recheck the key.
-- A note without a body (attachments only) is keyed by its document paths instead, so two different
-- attachments are never taken for the same note. Every writer of notes is covered: the key is
-- derived from the stored columns, not supplied by the application.
CREATE FUNCTION "note_dedup_key"("body" TEXT, "documents" JSONB) RETURNS TEXT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN COALESCE('b:' || "body", 'd:' || jsonb_path_query_array("documents", '$[*].document_path')::text);

CREATE INDEX "notes_account_id_dedup_key_idx"
    ON "notes"("account_id", md5("note_dedup_key"("body", "documents")));

-- The dedup index leads with account_id, so it also serves the foreign key and per-account reads.
DROP INDEX "notes_account_id_idx";
