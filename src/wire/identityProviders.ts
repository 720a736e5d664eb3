import type { components } from '../../generated/openapi-admin.ts';
import type { IdentityProviderRecord } from '../repositories/identityProviders.ts';

/** The one wire form of an identity provider (admin API and CLI): the client secret is never on it. */
export function toWireIdentityProvider(provider: IdentityProviderRecord): components['schemas']['IdentityProvider'] {
  return {
    id: provider.id,
    name: provider.name,
    issuer: provider.issuer,
    client_id: provider.client_id,
    email_domains: provider.email_domains,
    email_claim: provider.email_claim,
    owner_id_claim: provider.owner_id_claim,
    admins_allowed: provider.admins_allowed,
    created_at: provider.created_at.toISOString(),
  };
}
