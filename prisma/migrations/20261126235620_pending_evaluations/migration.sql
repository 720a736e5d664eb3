-- CreateTable
CREATE TABLE "pending_evaluations" (
    "org_id" TEXT NOT NULL,
    "deal_id" TEXT NOT NULL,
    "before" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pending_evaluations_pkey" PRIMARY KEY ("org_id","deal_id")
);
