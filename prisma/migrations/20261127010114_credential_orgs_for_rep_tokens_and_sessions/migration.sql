-- Rep tokens and portal sessions found through credential_orgs (issue 31 item 5, docs/scaling.md): backfilled from
-- every token and session; their digests are then unique per org.
INSERT INTO "credential_orgs" ("kind", "lookup", "org_id", "created_at")
SELECT 'rep_token', "digest", "org_id", "created_at" FROM "rep_tokens";

INSERT INTO "credential_orgs" ("kind", "lookup", "org_id", "created_at")
SELECT 'rep_session', "token_digest", "org_id", "created_at" FROM "rep_sessions";

-- CreateIndex
CREATE UNIQUE INDEX "rep_sessions_org_id_token_digest_key" ON "rep_sessions"("org_id", "token_digest");

-- CreateIndex
CREATE UNIQUE INDEX "rep_tokens_org_id_digest_key" ON "rep_tokens"("org_id", "digest");

-- DropIndex
DROP INDEX "rep_sessions_token_digest_key";

-- DropIndex
DROP INDEX "rep_tokens_digest_key";
