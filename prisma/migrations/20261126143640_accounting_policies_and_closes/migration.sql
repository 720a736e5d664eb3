-- CreateTable
CREATE TABLE "accounting_policy_versions" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "definition" JSONB NOT NULL,
    "digest" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounting_policy_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "accounting_closes" (
    "org_id" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "closed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "accounting_closes_pkey" PRIMARY KEY ("org_id","month")
);

-- CreateIndex
CREATE UNIQUE INDEX "accounting_policy_versions_org_id_number_key" ON "accounting_policy_versions"("org_id", "number");
