-- AlterTable
ALTER TABLE "earnings" ADD COLUMN     "status_reason" JSONB;
