-- A refresh token records the API key its family started from, so revoking a key ends exactly those
-- families, and token issuance can lock the key row against a concurrent revocation.
-- Earlier tokens did not record it. In an organisation with one active key, that key issued them; in
-- any other organisation the key cannot be known, so those families are revoked (their clients sign
-- in again with their API key) and attributed to the organisation's first key, which keeps them dead.
ALTER TABLE "refresh_tokens" ADD COLUMN "api_key_id" INTEGER;

UPDATE "refresh_tokens" AS t SET "api_key_id" = k."id"
  FROM "api_keys" AS k
 WHERE k."organisation_id" = t."organisation_id" AND k."revoked_at" IS NULL
   AND (SELECT count(*) FROM "api_keys" AS o WHERE o."organisation_id" = t."organisation_id" AND o."revoked_at" IS NULL) = 1;

UPDATE "refresh_tokens" AS t
   SET "api_key_id" = (SELECT min(k."id") FROM "api_keys" AS k WHERE k."organisation_id" = t."organisation_id"),
       "revoked_at" = COALESCE(t."revoked_at", now())
 WHERE t."api_key_id" IS NULL;

-- An organisation without any key cannot have issued a token.
DELETE FROM "refresh_tokens" WHERE "api_key_id" IS NULL;

ALTER TABLE "refresh_tokens" ALTER COLUMN "api_key_id" SET NOT NULL;
CREATE INDEX "refresh_tokens_api_key_id_idx" ON "refresh_tokens"("api_key_id");
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_api_key_id_fkey"
    FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
