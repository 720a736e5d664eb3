-- DropForeignKey
ALTER TABLE "audit_entries" DROP CONSTRAINT "audit_entries_org_id_fkey";
