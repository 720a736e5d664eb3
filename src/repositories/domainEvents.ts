import type { DomainEventType, FieldChange } from '../domain/deals/projection.ts';
import type { AuditEntryInput } from './audit.ts';
import { auditEntryCte, auditEntryValues } from './audit.ts';
import { named, type Transaction } from './transaction.ts';

export interface DomainEventRecord {
  id: string;
  org_id: string;
  source_event_id: string;
  deal_id: string;
  type: DomainEventType;
  event_type_hint: string;
  changes: FieldChange[];
  stale: boolean;
  occurred_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, org_id, source_event_id, deal_id, type, event_type_hint, changes, stale, occurred_at, created_at';

const RECORD_STALE = `
  WITH ${auditEntryCte(7)}
  INSERT INTO domain_events
    (id, org_id, source_event_id, deal_id, type, event_type_hint, changes, stale, occurred_at, created_at)
  VALUES ($1, $2, $3, $4, 'deal.updated', $5, '[]'::jsonb, true, $6::timestamptz, clock_timestamp())
  RETURNING ${COLUMNS}`;

/**
 * Records an event that arrived older than the deal's latest applied one: no changes, projection untouched. The
 * request's audit entry, when given, is written by the same statement (auditEntryCte).
 */
export async function recordStale(
  tx: Transaction,
  orgId: string,
  event: { id: string; sourceEventId: string; dealId: string; eventTypeHint: string; occurredAt: Date },
  audit: AuditEntryInput | null = null,
): Promise<DomainEventRecord> {
  const rows = await tx.query<DomainEventRecord>(
    named('domain_events_record_stale', {
      text: RECORD_STALE,
      values: [
        event.id,
        orgId,
        event.sourceEventId,
        event.dealId,
        event.eventTypeHint,
        event.occurredAt,
        ...auditEntryValues(orgId, audit),
      ],
    }),
  );
  return rows[0] as DomainEventRecord;
}

/** The domain events of one deal, oldest first. */
export async function listForDeal(tx: Transaction, orgId: string, dealId: string): Promise<DomainEventRecord[]> {
  const rows = await tx.query<DomainEventRecord>({
    text: `SELECT ${COLUMNS} FROM domain_events WHERE org_id = $1 AND deal_id = $2 ORDER BY created_at, id`,
    values: [orgId, dealId],
  });
  return rows;
}

/** A domain event as an earnings trace names it for its cause: the event, its deal and the changes it made. */
export interface CauseEventRecord {
  domain_event_id: string;
  event_kind: DomainEventType;
  deal_id: string;
  deal_external_id: string;
  changes: FieldChange[];
}

/** These domain events with their deals' external ids (what a stored trace's cause is completed from). */
export async function causesOf(tx: Transaction, orgId: string, ids: readonly string[]): Promise<CauseEventRecord[]> {
  if (ids.length === 0) return [];
  return tx.query<CauseEventRecord>(
    named('domain_events_causes_of', {
      text: `SELECT e.id AS domain_event_id, e.type AS event_kind, e.deal_id, d.external_id AS deal_external_id,
                    e.changes
             FROM domain_events e JOIN deals d ON d.org_id = e.org_id AND d.id = e.deal_id
             WHERE e.org_id = $1 AND d.org_id = $1 AND e.id = ANY($2::text[])`,
      values: [orgId, [...ids]],
    }),
  );
}
