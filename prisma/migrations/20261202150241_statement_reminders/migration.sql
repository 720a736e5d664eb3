-- CreateTable
CREATE TABLE "statement_reminders" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "period_id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "recipients" JSONB NOT NULL,
    "reminded_by" TEXT NOT NULL,
    "reminded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "statement_reminders_pkey" PRIMARY KEY ("org_id","id")
);

-- CreateIndex
CREATE INDEX "statement_reminders_org_id_period_id_user_id_reminded_at_idx" ON "statement_reminders"("org_id", "period_id", "user_id", "reminded_at");

-- AddForeignKey
ALTER TABLE "statement_reminders" ADD CONSTRAINT "statement_reminders_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;
