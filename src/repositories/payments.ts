import type { DomainEventType } from '../domain/deals/projection.ts';
import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import { DEAL_COLUMNS, type DealRecord, type DealRow, type StoredPayment, toDealRecord } from './deals.ts';
import type { DomainEventRecord } from './domainEvents.ts';
import { named, statementParameters, type Transaction } from './transaction.ts';

// The customer's payments against deals (POST /v1/payments): the `payments` rows, and the deal's own copy of those
// that count (`deals.payments`), which the earnings engine reads with the deal. Both are written by one transaction
// under the deal's row lock, with the source and domain events that the earnings rows it moves name as their cause.

export interface PaymentRecord {
  id: string;
  org_id: string;
  external_id: string;
  deal_id: string;
  deal_external_id: string;
  amount_cents: number;
  currency: string;
  /** `YYYY-MM-DD`. */
  received_on: string;
  body_digest: string;
  domain_event_id: string;
  voided_at: Date | null;
  created_at: Date;
}

export interface PaymentFilters {
  dealId?: string;
  dealExternalId?: string;
}

const COLUMNS = `p.id, p.org_id, p.external_id, p.deal_id, d.external_id AS deal_external_id, p.amount_cents,
  p.currency, p.received_on, p.body_digest, p.domain_event_id, p.voided_at, p.created_at`;

/** The payment's row with its deal's external id; the deal is read by the payment's org as well. */
const FROM = 'payments p JOIN deals d ON d.org_id = p.org_id AND d.id = p.deal_id';

const INSERT = `
  INSERT INTO payments (id, org_id, external_id, deal_id, amount_cents, currency, received_on, body_digest,
                        domain_event_id, created_at)
  VALUES ($1, $2, $3, $4, $5::bigint, $6, $7::date, $8, $9, date_trunc('milliseconds', statement_timestamp()))
  ON CONFLICT (org_id, external_id) DO NOTHING
  RETURNING id`;

/**
 * Inserts the payment unless its external id is taken (then nothing is written and false returned: the caller reads
 * the one recorded). A concurrent request with the same external id waits on the unique index for this one to end.
 */
export async function insert(
  tx: Transaction,
  orgId: string,
  payment: {
    id: string;
    externalId: string;
    dealId: string;
    amountCents: number;
    currency: string;
    receivedOn: string;
    bodyDigest: string;
    domainEventId: string;
  },
): Promise<boolean> {
  const rows = await tx.query<{ id: string }>(
    named('payments_insert', {
      text: INSERT,
      values: [
        payment.id,
        orgId,
        payment.externalId,
        payment.dealId,
        payment.amountCents,
        payment.currency,
        payment.receivedOn,
        payment.bodyDigest,
        payment.domainEventId,
      ],
    }),
  );
  return rows.length > 0;
}

export async function findById(tx: Transaction, orgId: string, id: string): Promise<PaymentRecord | null> {
  const rows = await tx.query<PaymentRecord>(
    named('payments_find_by_id', {
      text: `SELECT ${COLUMNS} FROM ${FROM} WHERE p.org_id = $1 AND d.org_id = $1 AND p.id = $2`,
      values: [orgId, id],
    }),
  );
  return rows[0] ?? null;
}

export async function findByExternalId(
  tx: Transaction,
  orgId: string,
  externalId: string,
): Promise<PaymentRecord | null> {
  const rows = await tx.query<PaymentRecord>(
    named('payments_find_by_external_id', {
      text: `SELECT ${COLUMNS} FROM ${FROM} WHERE p.org_id = $1 AND d.org_id = $1 AND p.external_id = $2`,
      values: [orgId, externalId],
    }),
  );
  return rows[0] ?? null;
}

/** Marks the payment voided unless it is already; false when it was (a concurrent void came first). */
export async function markVoided(
  tx: Transaction,
  orgId: string,
  id: string,
  voidDomainEventId: string,
): Promise<boolean> {
  const rows = await tx.query<{ id: string }>(
    named('payments_mark_voided', {
      text: `UPDATE payments SET voided_at = date_trunc('milliseconds', statement_timestamp()), void_domain_event_id = $3
             WHERE org_id = $1 AND id = $2 AND voided_at IS NULL
             RETURNING id`,
      values: [orgId, id, voidDomainEventId],
    }),
  );
  return rows.length > 0;
}

/** Up to `limit` payments after `position` in (created_at, id) order, with the filters given. */
export async function listAfter(
  tx: Transaction,
  orgId: string,
  filters: PaymentFilters,
  position: KeysetPosition,
  limit: number,
): Promise<PaymentRecord[]> {
  const { values, param } = statementParameters(orgId);
  const where = ['p.org_id = $1', 'd.org_id = $1'];
  if (filters.dealId !== undefined) where.push(`p.deal_id = ${param(filters.dealId)}`);
  if (filters.dealExternalId !== undefined) where.push(`d.external_id = ${param(filters.dealExternalId)}`);
  if (position) where.push(`(p.created_at, p.id) > (${param(position.at)}::timestamptz, ${param(position.id)})`);
  return tx.query<PaymentRecord>({
    text: `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where.join(' AND ')}
           ORDER BY p.created_at, p.id LIMIT ${param(limit)}`,
    values,
  });
}

/** Locks the deal of a payment (by the deal's id) FOR NO KEY UPDATE, as a deal event does, and returns it. */
export async function lockDealById(tx: Transaction, orgId: string, dealId: string): Promise<DealRecord | null> {
  const rows = await tx.query<DealRow>(
    named('payments_lock_deal', {
      text: `SELECT ${DEAL_COLUMNS} FROM deals WHERE org_id = $1 AND id = $2 FOR NO KEY UPDATE`,
      values: [orgId, dealId],
    }),
  );
  return rows[0] ? toDealRecord(rows[0]) : null;
}

/** The org's stage lists, for the deal change handed to the earnings engine. */
export async function stagesOf(tx: Transaction, orgId: string): Promise<{ won: string[]; lost: string[] }> {
  const rows = await tx.query<{ won_stages: string[]; lost_stages: string[] }>(
    named('payments_org_stages', { text: 'SELECT won_stages, lost_stages FROM orgs WHERE id = $1', values: [orgId] }),
  );
  const row = rows[0];
  if (!row) throw new Error(`org ${orgId} does not exist`);
  return { won: row.won_stages, lost: row.lost_stages };
}

// The payment's source event (the request as received) and its domain event, and the deal's payments set, in one
// round trip, as a deal event records its events and moves its deal (deals.applyEvent). The deal's version and
// updated_at stay: a payment changes nothing of the deal the change feed hands out.
const APPLY_PAYMENTS = `
  WITH clock AS (
    SELECT date_trunc('milliseconds', statement_timestamp()) AS at
  ), source AS (
    INSERT INTO source_events (id, org_id, key_id, dedup_key, external_id, body, body_digest, received_at)
    VALUES ($1, $2, $3::text, $4, $5, $6::json, $7, $8::timestamptz)
    RETURNING id
  ), recorded AS (
    INSERT INTO domain_events
      (id, org_id, source_event_id, deal_id, type, event_type_hint, changes, stale, occurred_at, created_at)
    SELECT $9, $2, $1, $10, $11, $12, $13::jsonb, false, NULL, clock.at FROM clock
    RETURNING created_at
  )
  UPDATE deals d SET payments = $14::jsonb
  WHERE d.org_id = $2 AND d.id = $10 AND EXISTS (SELECT 1 FROM source)
  RETURNING ${DEAL_COLUMNS}, (SELECT created_at FROM recorded) AS event_created_at`;

/** Records the payment's (or its void's) events and sets the locked deal's payments; the deal as it is now. */
export async function applyPayments(
  tx: Transaction,
  orgId: string,
  change: {
    sourceEventId: string;
    keyId: string | null;
    dedupKey: string;
    rawBody: string;
    bodyDigest: string;
    receivedAt: Date;
    domainEventId: string;
    deal: DealRecord;
    type: DomainEventType;
    hint: string;
    payments: StoredPayment[];
  },
): Promise<{ deal: DealRecord; domainEvent: DomainEventRecord }> {
  const changes = [{ field: 'payments', old: change.deal.payments ?? [], new: change.payments }];
  const rows = await tx.query<DealRow & { event_created_at: Date }>(
    named('payments_apply', {
      text: APPLY_PAYMENTS,
      values: [
        change.sourceEventId,
        orgId,
        change.keyId,
        change.dedupKey,
        change.deal.external_id,
        change.rawBody,
        change.bodyDigest,
        change.receivedAt,
        change.domainEventId,
        change.deal.id,
        change.type,
        change.hint,
        JSON.stringify(changes),
        change.payments.length === 0 ? null : JSON.stringify(change.payments),
      ],
    }),
  );
  const row = rows[0];
  if (!row) throw new Error(`deal ${change.deal.id} of org ${orgId} is not locked by this transaction`);
  return {
    deal: toDealRecord(row),
    domainEvent: {
      id: change.domainEventId,
      org_id: orgId,
      source_event_id: change.sourceEventId,
      deal_id: change.deal.id,
      type: change.type,
      event_type_hint: change.hint,
      changes: changes as unknown as DomainEventRecord['changes'],
      stale: false,
      occurred_at: null,
      created_at: row.event_created_at,
    },
  };
}
