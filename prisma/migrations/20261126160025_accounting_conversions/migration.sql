-- CreateTable
CREATE TABLE "accounting_conversions" (
    "org_id" TEXT NOT NULL,
    "earning_id" TEXT NOT NULL,
    "book_currency" TEXT NOT NULL,
    "rate" TEXT NOT NULL,
    "inverse" BOOLEAN NOT NULL,
    "rate_effective_on" DATE NOT NULL,
    "rate_set_at" TIMESTAMPTZ(3) NOT NULL,
    "converted_minor" BIGINT NOT NULL,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounting_conversions_pkey" PRIMARY KEY ("org_id","earning_id")
);
