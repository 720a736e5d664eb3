-- Plan tables keyed by org first (issue 31 item 5, docs/scaling.md).
-- DropForeignKey
ALTER TABLE "chips" DROP CONSTRAINT "chips_plan_id_fkey";

-- DropForeignKey
ALTER TABLE "plan_version_chips" DROP CONSTRAINT "plan_version_chips_chip_id_fkey";

-- DropForeignKey
ALTER TABLE "plan_version_chips" DROP CONSTRAINT "plan_version_chips_plan_version_id_fkey";

-- DropForeignKey
ALTER TABLE "plan_versions" DROP CONSTRAINT "plan_versions_plan_id_fkey";

-- DropIndex
DROP INDEX "chips_plan_id_key_key";

-- DropIndex
DROP INDEX "plan_version_chips_plan_version_id_position_key";

-- DropIndex
DROP INDEX "plan_versions_plan_id_number_key";

-- AlterTable
ALTER TABLE "chips" DROP CONSTRAINT "chips_pkey",
ADD CONSTRAINT "chips_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable: a version's chip rows belong to the version's org (copied down, docs/scaling.md).
ALTER TABLE "plan_version_chips" ADD COLUMN "org_id" TEXT;
UPDATE "plan_version_chips" c SET "org_id" = v."org_id" FROM "plan_versions" v WHERE v."id" = c."plan_version_id";
ALTER TABLE "plan_version_chips" ALTER COLUMN "org_id" SET NOT NULL,
DROP CONSTRAINT "plan_version_chips_pkey",
ADD CONSTRAINT "plan_version_chips_pkey" PRIMARY KEY ("org_id", "plan_version_id", "chip_id");

-- AlterTable
ALTER TABLE "plan_versions" DROP CONSTRAINT "plan_versions_pkey",
ADD CONSTRAINT "plan_versions_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "plans" DROP CONSTRAINT "plans_pkey",
ADD CONSTRAINT "plans_pkey" PRIMARY KEY ("org_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "chips_org_id_plan_id_key_key" ON "chips"("org_id", "plan_id", "key");

-- CreateIndex
CREATE UNIQUE INDEX "plan_version_chips_org_id_plan_version_id_position_key" ON "plan_version_chips"("org_id", "plan_version_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "plan_versions_org_id_plan_id_number_key" ON "plan_versions"("org_id", "plan_id", "number");

-- AddForeignKey
ALTER TABLE "plan_versions" ADD CONSTRAINT "plan_versions_org_id_plan_id_fkey" FOREIGN KEY ("org_id", "plan_id") REFERENCES "plans"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "chips" ADD CONSTRAINT "chips_org_id_plan_id_fkey" FOREIGN KEY ("org_id", "plan_id") REFERENCES "plans"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "plan_version_chips" ADD CONSTRAINT "plan_version_chips_org_id_plan_version_id_fkey" FOREIGN KEY ("org_id", "plan_version_id") REFERENCES "plan_versions"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "plan_version_chips" ADD CONSTRAINT "plan_version_chips_org_id_chip_id_fkey" FOREIGN KEY ("org_id", "chip_id") REFERENCES "chips"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
