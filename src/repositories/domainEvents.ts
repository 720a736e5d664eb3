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
