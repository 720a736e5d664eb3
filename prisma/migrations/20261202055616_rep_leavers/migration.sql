-- AlterTable
ALTER TABLE "users" ADD COLUMN     "deactivated_at" TIMESTAMPTZ(3),
ADD COLUMN     "leaving_date" DATE;
