-- CreateTable
CREATE TABLE "identity_providers" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_secret" TEXT NOT NULL,
    "email_domains" TEXT[],
    "email_claim" TEXT NOT NULL DEFAULT 'email',
    "owner_id_claim" TEXT,
    "admins_allowed" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "identity_providers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sso_sign_in_attempts" (
    "id" TEXT NOT NULL,
    "state_digest" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "code_verifier" TEXT NOT NULL,
    "destination" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "consumed_at" TIMESTAMPTZ(3),

    CONSTRAINT "sso_sign_in_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rep_invitations" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rep_invitations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rep_sign_in_links" (
    "id" TEXT NOT NULL,
    "token_digest" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "rep_sign_in_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rep_sessions" (
    "id" TEXT NOT NULL,
    "token_digest" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "provider_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "rep_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "identity_providers_org_id_name_key" ON "identity_providers"("org_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "sso_sign_in_attempts_state_digest_key" ON "sso_sign_in_attempts"("state_digest");

-- CreateIndex
CREATE INDEX "sso_sign_in_attempts_expires_at_idx" ON "sso_sign_in_attempts"("expires_at");

-- CreateIndex
CREATE INDEX "rep_invitations_user_id_idx" ON "rep_invitations"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "rep_invitations_org_id_email_key" ON "rep_invitations"("org_id", "email");

-- CreateIndex
CREATE UNIQUE INDEX "rep_sign_in_links_token_digest_key" ON "rep_sign_in_links"("token_digest");

-- CreateIndex
CREATE INDEX "rep_sign_in_links_user_id_idx" ON "rep_sign_in_links"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "rep_sessions_token_digest_key" ON "rep_sessions"("token_digest");

-- CreateIndex
CREATE INDEX "rep_sessions_user_id_idx" ON "rep_sessions"("user_id");

-- AddForeignKey
ALTER TABLE "identity_providers" ADD CONSTRAINT "identity_providers_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rep_invitations" ADD CONSTRAINT "rep_invitations_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rep_sign_in_links" ADD CONSTRAINT "rep_sign_in_links_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rep_sessions" ADD CONSTRAINT "rep_sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
