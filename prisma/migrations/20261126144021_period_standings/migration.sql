-- CreateTable
CREATE TABLE "period_standings" (
    "org_id" TEXT NOT NULL,
    "plan_version_id" TEXT NOT NULL,
    "chip_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "period_id" TEXT NOT NULL,
    "config_version" INTEGER NOT NULL,
    "total_cents" DECIMAL(40,0) NOT NULL,
    "counted" INTEGER NOT NULL,
    "unpriced" INTEGER NOT NULL,
    "last" JSONB,
    "open" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "period_standings_pkey" PRIMARY KEY ("org_id","plan_version_id","user_id","period_id","chip_id")
);
