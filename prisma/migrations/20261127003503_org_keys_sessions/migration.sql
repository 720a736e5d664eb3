-- Admins and the sign-in tables (sessions, sign-in links, rep tokens, SSO attempts) keyed by (org_id, id), and an admin
-- session's reference to its admin by (org_id, admin_id) (issue 31 item 5, docs/scaling.md).
-- DropForeignKey
ALTER TABLE "admin_sessions" DROP CONSTRAINT "admin_sessions_admin_id_fkey";

-- DropIndex
DROP INDEX "admin_sessions_admin_id_idx";

-- DropIndex
DROP INDEX "rep_tokens_rep_session_id_idx";

-- AlterTable
ALTER TABLE "admin_sessions" DROP CONSTRAINT "admin_sessions_pkey",
ADD CONSTRAINT "admin_sessions_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "admins" DROP CONSTRAINT "admins_pkey",
ADD CONSTRAINT "admins_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "rep_sessions" DROP CONSTRAINT "rep_sessions_pkey",
ADD CONSTRAINT "rep_sessions_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "rep_sign_in_links" DROP CONSTRAINT "rep_sign_in_links_pkey",
ADD CONSTRAINT "rep_sign_in_links_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "rep_tokens" DROP CONSTRAINT "rep_tokens_pkey",
ADD CONSTRAINT "rep_tokens_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "sso_sign_in_attempts" DROP CONSTRAINT "sso_sign_in_attempts_pkey",
ADD CONSTRAINT "sso_sign_in_attempts_pkey" PRIMARY KEY ("org_id", "id");

-- CreateIndex
CREATE INDEX "admin_sessions_org_id_admin_id_idx" ON "admin_sessions"("org_id", "admin_id");

-- CreateIndex
CREATE INDEX "rep_tokens_org_id_rep_session_id_idx" ON "rep_tokens"("org_id", "rep_session_id");

-- AddForeignKey
ALTER TABLE "admin_sessions" ADD CONSTRAINT "admin_sessions_org_id_admin_id_fkey" FOREIGN KEY ("org_id", "admin_id") REFERENCES "admins"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
