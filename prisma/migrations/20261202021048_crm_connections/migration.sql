-- CreateTable
CREATE TABLE "crm_connections" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "client_id" TEXT NOT NULL,
    "client_secret" TEXT NOT NULL,
    "redirect_uri" TEXT NOT NULL,
    "oauth_state" TEXT,
    "account_id" TEXT,
    "access_token" TEXT,
    "refresh_token" TEXT,
    "token_expires_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "last_error_at" TIMESTAMPTZ(3),
    "last_change_at" TIMESTAMPTZ(3),
    "last_sync_at" TIMESTAMPTZ(3),
    "sync_from" TIMESTAMPTZ(3),
    "pending_ids" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crm_connections_pkey" PRIMARY KEY ("org_id","id")
);

-- CreateIndex
CREATE UNIQUE INDEX "crm_connections_org_id_oauth_state_key" ON "crm_connections"("org_id", "oauth_state");

-- AddForeignKey
ALTER TABLE "crm_connections" ADD CONSTRAINT "crm_connections_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
