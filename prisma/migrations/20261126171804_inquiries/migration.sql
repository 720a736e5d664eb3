-- CreateTable
CREATE TABLE "inquiries" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "subject_kind" TEXT NOT NULL,
    "earning_id" TEXT,
    "deal_id" TEXT,
    "period_id" TEXT,
    "type" TEXT NOT NULL,
    "expected_amount_cents" BIGINT,
    "expected_currency" TEXT,
    "message" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "assignee_admin_id" TEXT,
    "opened_by_kind" TEXT NOT NULL,
    "opened_by_id" TEXT NOT NULL,
    "opened_by_label" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "first_response_at" TIMESTAMPTZ(3),
    "in_review_at" TIMESTAMPTZ(3),
    "closed_at" TIMESTAMPTZ(3),
    "amount_changed_cents" BIGINT,
    "amount_changed_currency" TEXT,
    "resolution_note" TEXT,

    CONSTRAINT "inquiries_pkey" PRIMARY KEY ("org_id","id")
);

-- CreateTable
CREATE TABLE "inquiry_links" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "inquiry_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "target_id" TEXT,
    "position" INTEGER NOT NULL,

    CONSTRAINT "inquiry_links_pkey" PRIMARY KEY ("org_id","id")
);

-- CreateTable
CREATE TABLE "inquiry_comments" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "inquiry_id" TEXT NOT NULL,
    "author_kind" TEXT NOT NULL,
    "author_id" TEXT NOT NULL,
    "author_label" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "internal" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "inquiry_comments_pkey" PRIMARY KEY ("org_id","id")
);

-- CreateIndex
CREATE INDEX "inquiries_org_id_created_at_id_idx" ON "inquiries"("org_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "inquiries_org_id_user_id_created_at_idx" ON "inquiries"("org_id", "user_id", "created_at");

-- CreateIndex
CREATE INDEX "inquiries_org_id_state_created_at_idx" ON "inquiries"("org_id", "state", "created_at");

-- CreateIndex
CREATE INDEX "inquiry_links_org_id_inquiry_id_idx" ON "inquiry_links"("org_id", "inquiry_id");

-- CreateIndex
CREATE INDEX "inquiry_links_org_id_kind_target_id_idx" ON "inquiry_links"("org_id", "kind", "target_id");

-- CreateIndex
CREATE INDEX "inquiry_comments_org_id_inquiry_id_created_at_idx" ON "inquiry_comments"("org_id", "inquiry_id", "created_at");
