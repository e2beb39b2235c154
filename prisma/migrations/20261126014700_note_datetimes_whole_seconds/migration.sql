-- Note datetimes are whole seconds from now on (the spec's YYYY-MM-DDTHH:MM:SSZ): the API stores them
-- truncated and a note without created_at is stamped with the current second. Notes stored before kept
-- their milliseconds, so their echo was outside the spec's format and a client sending that echo back
-- in the spec's format would not find the note (notes dedupe on created_at when one is sent). Truncated
-- here once; only the rows that have a fraction are rewritten.
UPDATE "notes"
   SET "created_at" = date_trunc('second', "created_at"),
       "unpin_at" = date_trunc('second', "unpin_at")
 WHERE "created_at" <> date_trunc('second', "created_at")
    OR "unpin_at" <> date_trunc('second', "unpin_at");
