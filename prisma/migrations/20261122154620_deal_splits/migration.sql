-- AlterTable
ALTER TABLE "deals" ADD COLUMN     "splits" JSONB;

-- CreateIndex
CREATE INDEX "deals_splits_idx" ON "deals" USING GIN ("splits" jsonb_path_ops);
