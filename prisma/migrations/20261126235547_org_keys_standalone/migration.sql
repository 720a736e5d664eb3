-- AlterTable
ALTER TABLE "accounting_policy_versions" DROP CONSTRAINT "accounting_policy_versions_pkey",
ADD CONSTRAINT "accounting_policy_versions_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "audit_entries" DROP CONSTRAINT "audit_entries_pkey",
ADD CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "identity_providers" DROP CONSTRAINT "identity_providers_pkey",
ADD CONSTRAINT "identity_providers_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "statement_approvals" DROP CONSTRAINT "statement_approvals_pkey",
ADD CONSTRAINT "statement_approvals_pkey" PRIMARY KEY ("org_id", "id");
