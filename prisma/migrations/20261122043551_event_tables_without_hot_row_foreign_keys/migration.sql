-- DropForeignKey
ALTER TABLE "domain_events" DROP CONSTRAINT "domain_events_org_id_fkey";

-- DropForeignKey
ALTER TABLE "source_events" DROP CONSTRAINT "source_events_key_id_fkey";

-- DropForeignKey
ALTER TABLE "source_events" DROP CONSTRAINT "source_events_org_id_fkey";
