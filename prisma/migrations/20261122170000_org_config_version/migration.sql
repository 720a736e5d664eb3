-- The org's configuration version: bumped in the same transaction as any change to what a deal event reads of
-- the org (its plans in force, its webhook endpoints, its stage lists), so that a server caching that
-- configuration can tell, from the version the event's first statement reads, whether its copy is current.
ALTER TABLE "orgs" ADD COLUMN "config_version" INTEGER NOT NULL DEFAULT 0;

CREATE FUNCTION quotient_bump_org_config_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE orgs SET config_version = config_version + 1
  WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.org_id ELSE NEW.org_id END;
  RETURN NULL;
END
$$;

CREATE TRIGGER plans_bump_org_config_version
  AFTER INSERT OR DELETE OR UPDATE OF status, current_version_id ON plans
  FOR EACH ROW EXECUTE FUNCTION quotient_bump_org_config_version();

CREATE TRIGGER webhook_endpoints_bump_org_config_version
  AFTER INSERT OR DELETE OR UPDATE OF enabled, removed_at, events ON webhook_endpoints
  FOR EACH ROW EXECUTE FUNCTION quotient_bump_org_config_version();

CREATE FUNCTION quotient_bump_own_config_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.won_stages IS DISTINCT FROM OLD.won_stages OR NEW.lost_stages IS DISTINCT FROM OLD.lost_stages THEN
    NEW.config_version := OLD.config_version + 1;
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER orgs_bump_config_version
  BEFORE UPDATE OF won_stages, lost_stages ON orgs
  FOR EACH ROW EXECUTE FUNCTION quotient_bump_own_config_version();
