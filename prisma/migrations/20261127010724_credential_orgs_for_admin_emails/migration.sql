-- Admins found by email through credential_orgs (issue 31 item 5, docs/scaling.md), whose primary key keeps an
-- email unique across orgs: backfilled from every admin; admins' email is then unique per org.
INSERT INTO "credential_orgs" ("kind", "lookup", "org_id", "created_at")
SELECT 'admin_email', "email", "org_id", "created_at" FROM "admins";

-- CreateIndex
CREATE UNIQUE INDEX "admins_org_id_email_key" ON "admins"("org_id", "email");

-- DropIndex
DROP INDEX "admins_email_key";
