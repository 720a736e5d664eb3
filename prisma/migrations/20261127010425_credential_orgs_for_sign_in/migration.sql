-- Admin sessions, rep sign-in links and SSO sign-in states found through credential_orgs (issue 31 item 5,
-- docs/scaling.md): backfilled from every row; their digests are then unique per org.
INSERT INTO "credential_orgs" ("kind", "lookup", "org_id", "created_at")
SELECT 'admin_session', "token_digest", "org_id", "created_at" FROM "admin_sessions";

INSERT INTO "credential_orgs" ("kind", "lookup", "org_id", "created_at")
SELECT 'rep_sign_in_link', "token_digest", "org_id", "created_at" FROM "rep_sign_in_links";

INSERT INTO "credential_orgs" ("kind", "lookup", "org_id", "created_at")
SELECT 'sso_state', "state_digest", "org_id", "created_at" FROM "sso_sign_in_attempts";

-- CreateIndex
CREATE UNIQUE INDEX "admin_sessions_org_id_token_digest_key" ON "admin_sessions"("org_id", "token_digest");

-- CreateIndex
CREATE UNIQUE INDEX "rep_sign_in_links_org_id_token_digest_key" ON "rep_sign_in_links"("org_id", "token_digest");

-- CreateIndex
CREATE UNIQUE INDEX "sso_sign_in_attempts_org_id_state_digest_key" ON "sso_sign_in_attempts"("org_id", "state_digest");

-- DropIndex
DROP INDEX "admin_sessions_token_digest_key";

-- DropIndex
DROP INDEX "rep_sign_in_links_token_digest_key";

-- DropIndex
DROP INDEX "sso_sign_in_attempts_state_digest_key";
