-- AlterTable
ALTER TABLE "source_events" ALTER COLUMN "body" SET DATA TYPE JSON;
