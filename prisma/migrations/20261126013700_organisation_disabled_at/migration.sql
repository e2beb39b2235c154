-- `admin organisations disable` sets it, `enable` clears it. While it is set the organisation obtains
-- no token and every token it holds is refused (api/auth/revocation-check.ts).
ALTER TABLE "organisations" ADD COLUMN "disabled_at" TIMESTAMPTZ(3);
