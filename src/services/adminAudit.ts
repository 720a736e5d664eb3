import { userInfo } from 'node:os';
import { newId } from '../lib/ids.ts';
import type { AuditEntryInput } from '../repositories/audit.ts';

/**
 * The audit entry of an admin action (key created, plan applied, period locked, …). Admin commands run on the
 * operator's machine, so the operating-system user stands for the admin until there is a web console.
 */
export function adminAuditEntry(orgId: string, action: string, details: Record<string, unknown>): AuditEntryInput {
  return {
    id: newId('aud'),
    org_id: orgId,
    occurred_at: new Date(),
    actor_type: 'admin',
    action,
    details: { ...details, via: 'cli', os_user: userInfo().username } as AuditEntryInput['details'],
  };
}
