-- AlterTable
ALTER TABLE "deals" ADD COLUMN     "currency" TEXT NOT NULL DEFAULT 'USD';

-- AlterTable
ALTER TABLE "earnings" ADD COLUMN     "currency" TEXT NOT NULL DEFAULT 'USD',
ADD COLUMN     "pricing" TEXT NOT NULL DEFAULT 'priced';

-- AlterTable
ALTER TABLE "orgs" ADD COLUMN     "default_currency" TEXT NOT NULL DEFAULT 'USD';

-- CreateTable
CREATE TABLE "exchange_rates" (
    "org_id" TEXT NOT NULL,
    "from_currency" TEXT NOT NULL,
    "to_currency" TEXT NOT NULL,
    "effective_on" DATE NOT NULL,
    "rate" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "exchange_rates_pkey" PRIMARY KEY ("org_id","from_currency","to_currency","effective_on")
);

-- AddForeignKey
ALTER TABLE "exchange_rates" ADD CONSTRAINT "exchange_rates_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A deal event reads the org's exchange rates and default currency from its cached configuration
-- (src/repositories/orgConfig.ts): a change to either bumps the org's configuration version.
CREATE TRIGGER exchange_rates_bump_org_config_version
  AFTER INSERT OR DELETE OR UPDATE ON exchange_rates
  FOR EACH ROW EXECUTE FUNCTION quotient_bump_org_config_version();

CREATE OR REPLACE FUNCTION quotient_bump_own_config_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.won_stages IS DISTINCT FROM OLD.won_stages OR NEW.lost_stages IS DISTINCT FROM OLD.lost_stages
     OR NEW.default_currency IS DISTINCT FROM OLD.default_currency THEN
    NEW.config_version := OLD.config_version + 1;
  END IF;
  RETURN NEW;
END
$$;

DROP TRIGGER orgs_bump_config_version ON orgs;
CREATE TRIGGER orgs_bump_config_version
  BEFORE UPDATE OF won_stages, lost_stages, default_currency ON orgs
  FOR EACH ROW EXECUTE FUNCTION quotient_bump_own_config_version();
