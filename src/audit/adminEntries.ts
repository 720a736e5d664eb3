import { userInfo } from 'node:os';
import { newId } from '../lib/ids.ts';
import type { AuditEntryInput } from '../repositories/audit.ts';

/**
 * Who performs an admin action. Admin commands run on the operator's machine: their actor is `cli` (with the
 * operating-system user in the details). Console actions carry the signed-in admin and the request they came in.
 */
export type AdminActor =
  | { kind: 'cli' }
  | {
      kind: 'admin';
      adminId: string;
      email: string;
      requestId: string;
      method: string;
      route: string;
      clientIp: string | null;
      userAgent: string | null;
    };

export const CLI_ACTOR: AdminActor = { kind: 'cli' };

/** An identity provider's SCIM client, which changes reps for the admins (docs/sso.md#provisioning-with-scim). */
export interface ScimActor {
  kind: 'scim';
  providerId: string;
  providerName: string;
}

/** Whoever an admin-side audit entry names: an admin (console or CLI) or a provisioning client. */
export type AuditActor = AdminActor | ScimActor;

/** The audit entry of an admin action (key created, plan applied, period locked, …). */
export function adminAuditEntry(
  orgId: string,
  action: string,
  details: Record<string, unknown>,
  actor: AuditActor = CLI_ACTOR,
): AuditEntryInput {
  const base = { id: newId('aud'), org_id: orgId, occurred_at: new Date(), actor_type: 'admin' as const, action };
  if (actor.kind === 'cli') {
    return {
      ...base,
      actor: 'cli',
      details: { ...details, via: 'cli', os_user: userInfo().username } as AuditEntryInput['details'],
    };
  }
  if (actor.kind === 'scim') {
    return {
      ...base,
      actor: `scim:${actor.providerName}`,
      details: { ...details, via: 'scim', identity_provider_id: actor.providerId } as AuditEntryInput['details'],
    };
  }
  return {
    ...base,
    actor: actor.email,
    method: actor.method,
    route: actor.route,
    request_id: actor.requestId,
    client_ip: actor.clientIp,
    user_agent: actor.userAgent,
    details: { ...details, via: 'console', admin_id: actor.adminId } as AuditEntryInput['details'],
  };
}
