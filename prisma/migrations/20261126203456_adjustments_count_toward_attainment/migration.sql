-- AlterTable
ALTER TABLE "adjustments" ADD COLUMN     "counts_toward_attainment" BOOLEAN NOT NULL DEFAULT false;
