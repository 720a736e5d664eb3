-- CreateTable
CREATE TABLE "scenarios" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "name" TEXT,
    "kept" BOOLEAN NOT NULL DEFAULT false,
    "plan_file" TEXT NOT NULL,
    "plan_key" TEXT NOT NULL,
    "compare_plan_key" TEXT NOT NULL,
    "from_period" TEXT NOT NULL,
    "to_period" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "reps_total" INTEGER NOT NULL DEFAULT 0,
    "reps_done" INTEGER NOT NULL DEFAULT 0,
    "summary" JSONB,
    "failure" TEXT,
    "promoted_version_id" TEXT,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "scenarios_pkey" PRIMARY KEY ("org_id","id")
);

-- CreateTable
CREATE TABLE "scenario_results" (
    "org_id" TEXT NOT NULL,
    "scenario_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "user_external_id" TEXT NOT NULL,
    "actual_cents" BIGINT NOT NULL,
    "scenario_cents" BIGINT NOT NULL,
    "difference_cents" BIGINT NOT NULL,
    "result" JSONB NOT NULL,

    CONSTRAINT "scenario_results_pkey" PRIMARY KEY ("org_id","scenario_id","user_id")
);

-- CreateIndex
CREATE INDEX "scenarios_org_id_created_at_idx" ON "scenarios"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "scenario_results_org_id_scenario_id_user_external_id_idx" ON "scenario_results"("org_id", "scenario_id", "user_external_id");

-- AddForeignKey
ALTER TABLE "scenarios" ADD CONSTRAINT "scenarios_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "scenario_results" ADD CONSTRAINT "scenario_results_org_id_scenario_id_fkey" FOREIGN KEY ("org_id", "scenario_id") REFERENCES "scenarios"("org_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;
