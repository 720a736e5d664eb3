-- CreateTable
CREATE TABLE "rep_managers" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "rep_user_id" TEXT NOT NULL,
    "manager_user_id" TEXT,
    "effective_from" DATE NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rep_managers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "rep_managers_org_id_manager_user_id_idx" ON "rep_managers"("org_id", "manager_user_id");

-- CreateIndex
CREATE UNIQUE INDEX "rep_managers_org_id_rep_user_id_effective_from_key" ON "rep_managers"("org_id", "rep_user_id", "effective_from");

-- AddForeignKey
ALTER TABLE "rep_managers" ADD CONSTRAINT "rep_managers_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rep_managers" ADD CONSTRAINT "rep_managers_rep_user_id_fkey" FOREIGN KEY ("rep_user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rep_managers" ADD CONSTRAINT "rep_managers_manager_user_id_fkey" FOREIGN KEY ("manager_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
