import type { components } from '../../generated/openapi-admin.ts';
import type { AdminRecord } from '../repositories/admins.ts';
import type { ApiKeyRecord } from '../repositories/apiKeys.ts';
import type { AuditEntryRecord } from '../repositories/audit.ts';
import type { WebhookEndpointRecord } from '../repositories/webhookEndpoints.ts';
import type { LiveSession } from '../services/adminIdentity.ts';

// The admin API's own resources on the wire (the signed-in admin, API keys, webhook endpoints, audit entries).
// Plans and periods, which the public API and the CLI show too, have their mappers in plans.ts and periods.ts.

type AdminSchemas = components['schemas'];

export function toMe(session: LiveSession): AdminSchemas['Me'] {
  return {
    admin: toAdmin(session.admin),
    org: { id: session.org_id, name: session.admin.org_name },
    session: {
      created_at: session.created_at.toISOString(),
      expires_at: session.expires_at.toISOString(),
      idle_expires_at: session.idle_expires_at.toISOString(),
    },
    csrf_token: session.csrf_token,
  };
}

export function toAdmin(admin: AdminRecord): AdminSchemas['Admin'] {
  return {
    id: admin.id,
    email: admin.email,
    display_name: admin.display_name,
    role: admin.role,
    status: admin.disabled_at ? 'disabled' : 'active',
    created_at: admin.created_at.toISOString(),
    disabled_at: admin.disabled_at?.toISOString() ?? null,
  };
}

export function toApiKey(key: ApiKeyRecord): AdminSchemas['ApiKey'] {
  return {
    id: key.id,
    name: key.name,
    display_prefix: key.display_prefix,
    scopes: key.scopes as AdminSchemas['Scope'][],
    rate_limit_per_minute: key.rate_limit_per_minute,
    status: key.revoked_at ? 'revoked' : 'active',
    created_at: key.created_at.toISOString(),
    last_used_at: key.last_used_at?.toISOString() ?? null,
    revoked_at: key.revoked_at?.toISOString() ?? null,
  };
}

export function toEndpoint(endpoint: WebhookEndpointRecord): AdminSchemas['WebhookEndpoint'] {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabled_reason,
    failing_since: endpoint.failing_since?.toISOString() ?? null,
    previous_secret_expires_at: endpoint.previous_secret_expires_at?.toISOString() ?? null,
    created_at: endpoint.created_at.toISOString(),
  };
}

/** An audit log entry; the user agent stays inside. */
export function toAuditEntry(entry: AuditEntryRecord): AdminSchemas['AuditEntry'] {
  return {
    id: entry.id,
    occurred_at: entry.occurred_at.toISOString(),
    actor_type: entry.actor_type as AdminSchemas['AuditEntry']['actor_type'],
    actor: entry.actor,
    key_id: entry.key_id,
    action: entry.action,
    method: entry.method,
    route: entry.route,
    status: entry.status,
    request_id: entry.request_id,
    client_ip: entry.client_ip,
    duration_ms: entry.duration_ms,
    details: (entry.details ?? null) as Record<string, unknown> | null,
  };
}
