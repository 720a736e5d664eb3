// The CRM's owners of deals as reps, for every connector: by the CRM's own user id, then by email.

export interface OwnerMatch {
  owner_id: string;
  email: string | null;
  rep_external_id: string;
  matched_by: 'owner_id' | 'email' | 'new';
}

/**
 * Which rep each CRM owner (a HubSpot owner, a Salesforce user) is: the rep whose external id is the owner id, else the rep whose external id is
 * the owner's email (as an import of another source may have named them), else a new rep of the owner id, created
 * on the owner's first deal.
 */
export function matchOwners(
  owners: ReadonlyArray<{ id: string; email: string | null }>,
  repExternalIds: ReadonlySet<string>,
): OwnerMatch[] {
  const byLowerCase = new Map([...repExternalIds].map((externalId) => [externalId.toLowerCase(), externalId]));
  return owners.map((owner) => {
    if (repExternalIds.has(owner.id)) {
      return { owner_id: owner.id, email: owner.email, rep_external_id: owner.id, matched_by: 'owner_id' };
    }
    const byEmail = owner.email ? byLowerCase.get(owner.email.toLowerCase()) : undefined;
    if (byEmail !== undefined) {
      return { owner_id: owner.id, email: owner.email, rep_external_id: byEmail, matched_by: 'email' };
    }
    return { owner_id: owner.id, email: owner.email, rep_external_id: owner.id, matched_by: 'new' };
  });
}
