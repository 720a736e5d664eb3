-- Salesforce connections: the JWT bearer flow has no client secret nor redirect URL (its private key is sealed
-- instead); the org's login URL and the instance its API is called at.
ALTER TABLE "crm_connections" ALTER COLUMN "client_secret" DROP NOT NULL,
ALTER COLUMN "redirect_uri" DROP NOT NULL,
ADD COLUMN "login_url" TEXT,
ADD COLUMN "instance_url" TEXT,
ADD COLUMN "jwt_username" TEXT,
ADD COLUMN "private_key" TEXT;
