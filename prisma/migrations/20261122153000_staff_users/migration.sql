-- Staff accounts for the operator and support pages (bull-board at /admin/queues, /support/).
-- Usernames are stored lower-case (the application normalises them), so the plain unique index is
-- case-insensitive in effect. password_hash is a self-describing scrypt string; session_generation
-- is bumped whenever existing sessions must stop working (password change, disable).
CREATE TYPE "StaffRole" AS ENUM ('operator', 'support');

CREATE TABLE "staff_users" (
    "id" SERIAL NOT NULL,
    "username" TEXT NOT NULL,
    "role" "StaffRole" NOT NULL,
    "password_hash" TEXT NOT NULL,
    "session_generation" INTEGER NOT NULL DEFAULT 0,
    "disabled_at" TIMESTAMPTZ(3),
    "last_login_at" TIMESTAMPTZ(3),
    "password_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "staff_users_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "staff_users_username_key" ON "staff_users"("username");
