-- AlterTable
ALTER TABLE "users" ADD COLUMN     "display_name_source" TEXT;

-- Names set before their source was kept came from nobody's sign-in: a sign-in must not overwrite them.
UPDATE "users" SET "display_name_source" = 'admin' WHERE "display_name" IS NOT NULL;
