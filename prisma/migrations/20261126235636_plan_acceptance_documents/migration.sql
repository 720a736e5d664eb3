-- CreateTable
CREATE TABLE "plan_acceptance_documents" (
    "org_id" TEXT NOT NULL,
    "plan_version_id" TEXT NOT NULL,
    "document" TEXT NOT NULL,
    "document_sha256" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "plan_acceptance_documents_pkey" PRIMARY KEY ("org_id","plan_version_id")
);
