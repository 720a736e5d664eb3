import type { components } from '../../generated/openapi-admin.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type { ConnectionPreview } from '../services/connectors/connectionAdmin.ts';

type Schemas = components['schemas'];

/** Where a connection's CRM sends its webhooks, on this server (the CRM app's target URL is its origin and this). */
export function webhookPathOf(connection: Pick<ConnectionRecord, 'org_id' | 'id' | 'kind'>): string {
  return `/connectors/${connection.kind}/webhooks/${connection.org_id}/${connection.id}`;
}

/**
 * The one wire form of a connection (admin API and CLI): never its secret or tokens. A live connection with records
 * announced and not applied yet is `behind` by their number.
 */
export function toWireConnection(connection: ConnectionRecord): Schemas['Connection'] {
  const behindBy = connection.pending_ids?.length ?? 0;
  return {
    id: connection.id,
    kind: connection.kind,
    status: connection.status === 'connected' && behindBy > 0 ? 'behind' : connection.status,
    behind_by: behindBy,
    error: connection.last_error,
    error_at: connection.last_error_at?.toISOString() ?? null,
    account_id: connection.account_id,
    client_id: connection.client_id,
    redirect_uri: connection.redirect_uri,
    webhook_path: connection.kind === 'hubspot' ? webhookPathOf(connection) : null,
    auth_flow: connection.jwt_username === null ? 'authorization_code' : 'jwt_bearer',
    login_url: connection.kind === 'salesforce' ? connection.login_url : null,
    instance_url: connection.instance_url,
    last_change_at: connection.last_change_at?.toISOString() ?? null,
    last_sync_at: connection.last_sync_at?.toISOString() ?? null,
    daily_limit_remaining: connection.kind === 'hubspot' ? (connection.daily_remaining ?? null) : null,
    reconciliation:
      connection.reconciled_at !== null
        ? {
            at: connection.reconciled_at.toISOString(),
            searched_from: (connection.reconciled_from ?? connection.reconciled_at).toISOString(),
            read: connection.reconciled_read,
            repaired: connection.reconciled_repaired,
            repaired_deal_ids: connection.reconciled_ids.slice(0, 20),
          }
        : null,
    created_at: connection.created_at.toISOString(),
  };
}

export function toWireConnectionPreview(preview: ConnectionPreview): Schemas['ConnectionPreview'] {
  return {
    mapping: preview.mapping,
    records: preview.records.map((record) => {
      if (record.kind === 'event') return { external_id: record.externalId, event: record.body };
      if (record.kind === 'deleted') return { external_id: record.externalId, deleted: true };
      return { external_id: record.externalId, refusal: record.reason };
    }),
  };
}
