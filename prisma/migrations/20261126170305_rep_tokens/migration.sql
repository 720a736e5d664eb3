-- AlterTable
ALTER TABLE "orgs" ADD COLUMN     "cors_allowed_origins" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "rep_rate_limit_per_minute" INTEGER NOT NULL DEFAULT 300;

-- CreateTable
CREATE TABLE "rep_tokens" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "api_key_id" TEXT,
    "rep_session_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "rep_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rep_rate_limit_counters" (
    "user_id" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "rep_rate_limit_counters_pkey" PRIMARY KEY ("user_id","window_start")
);

-- CreateIndex
CREATE UNIQUE INDEX "rep_tokens_digest_key" ON "rep_tokens"("digest");

-- CreateIndex
CREATE INDEX "rep_tokens_org_id_user_id_idx" ON "rep_tokens"("org_id", "user_id");

-- CreateIndex
CREATE INDEX "rep_tokens_rep_session_id_idx" ON "rep_tokens"("rep_session_id");

-- CreateIndex
CREATE INDEX "rep_rate_limit_counters_window_start_idx" ON "rep_rate_limit_counters"("window_start");

-- AddForeignKey
ALTER TABLE "rep_tokens" ADD CONSTRAINT "rep_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
