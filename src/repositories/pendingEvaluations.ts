import type { StageLists } from '../domain/deals/projection.ts';
import { DEAL_COLUMNS, type DealRecord, type DealRow, toDealRecord } from './deals.ts';
import type { DomainEventRecord } from './domainEvents.ts';
import { named, type Transaction } from './transaction.ts';

// Deals an import changed whose earnings are not evaluated yet (pending_evaluations; src/services/
// pendingEvaluations.ts). A row holds the deal as it was before the import's first change of it: later chunks that
// change the deal again keep it, so the evaluation sees the import's whole change of the deal at once.

/** A deal waiting for its evaluation: the deal before the import's first change of it (null: the import made it). */
export interface PendingDeal {
  dealId: string;
  before: DealRecord | null;
}

/** A pending deal taken for its evaluation, locked: as before the import's first change, as now, its last event. */
export interface TakenDeal {
  before: DealRecord | null;
  after: DealRecord;
  domainEvent: DomainEventRecord;
  /** The org's stage lists now. */
  stages: StageLists;
}

/** A deal's pending row and its owner now, for grouping the evaluations by rep. */
export interface PendingOwner {
  deal_id: string;
  user_id: string | null;
}

/** Records the deals as pending; a deal already pending keeps the state recorded first. One statement. */
export async function record(tx: Transaction, orgId: string, deals: readonly PendingDeal[]): Promise<void> {
  if (deals.length === 0) return;
  await tx.query({
    text: `INSERT INTO pending_evaluations (org_id, deal_id, before)
             SELECT $1, p.deal_id, p.before
             FROM unnest($2::text[], $3::jsonb[]) AS p(deal_id, before)
             ON CONFLICT (org_id, deal_id) DO NOTHING`,
    values: [
      orgId,
      deals.map((deal) => deal.dealId),
      deals.map((deal) => (deal.before === null ? null : JSON.stringify(deal.before))),
    ],
  });
}

/** The org's pending deals with their owners now (deals without an owner: user_id null). */
export async function pendingOwners(tx: Transaction, orgId: string): Promise<PendingOwner[]> {
  return tx.query<PendingOwner>(
    named('pending_evaluations_owners', {
      text: `SELECT p.deal_id, d.user_id
             FROM pending_evaluations p
             LEFT JOIN deals d ON d.org_id = p.org_id AND d.id = p.deal_id
             WHERE p.org_id = $1
             ORDER BY d.user_id, p.deal_id`,
      values: [orgId],
    }),
  );
}

/** How many deals of the org wait for their evaluation. */
export async function countOfOrg(tx: Transaction, orgId: string): Promise<number> {
  const [row] = await tx.query<{ count: number | string }>(
    named('pending_evaluations_count', {
      text: 'SELECT count(*) AS count FROM pending_evaluations WHERE org_id = $1',
      values: [orgId],
    }),
  );
  return Number(row?.count ?? 0);
}

/**
 * Takes these deals' pending rows (deleted: the caller's transaction evaluates them, and a rollback keeps them) and
 * locks the deals (FOR NO KEY UPDATE, in id order, as an event would), returning each with its state before, as it
 * is now and its last applied domain event. A row another transaction took meanwhile is not returned. The deals are
 * found by the ids given (the primary key), not through the taken rows: a join to those, planned on a `deals` never
 * analysed (a new install's first import), read every deal of the org for each group of reps.
 */
export async function take(tx: Transaction, orgId: string, dealIds: readonly string[]): Promise<TakenDeal[]> {
  if (dealIds.length === 0) return [];
  const rows = await tx.query<
    DealRow & {
      pending_before: SerialisedDeal | null;
      last_event: SerialisedEvent;
      won_stages: string[];
      lost_stages: string[];
      taken_count: number;
    }
  >(
    named('pending_evaluations_take', {
      text: `WITH taken AS (
               DELETE FROM pending_evaluations
               WHERE org_id = $1 AND deal_id = ANY($2::text[])
               RETURNING deal_id, before
             ), locked AS (
               SELECT ${DEAL_COLUMNS} FROM deals
               WHERE org_id = $1 AND id = ANY($2::text[])
               ORDER BY id
               FOR NO KEY UPDATE
             )
             SELECT locked.*, taken.before AS pending_before, to_jsonb(e) AS last_event, o.won_stages, o.lost_stages,
                    (SELECT count(*) FROM taken)::int AS taken_count
             FROM locked
             JOIN taken ON taken.deal_id = locked.id
             JOIN domain_events e ON e.org_id = $1 AND e.id = locked.last_domain_event_id
             JOIN orgs o ON o.id = $1
             ORDER BY locked.id`,
      values: [orgId, dealIds],
    }),
  );
  // Every pending deal has had an event applied; one taken without its deal or event would be lost: the caller's
  // transaction rolls back and the rows stay pending.
  const taken = rows[0]?.taken_count ?? 0;
  if (rows.length !== taken) {
    throw new Error(`org ${orgId}: ${taken - rows.length} pending deals have no deal row or last domain event`);
  }
  return rows.map((row) => {
    const { pending_before, last_event, won_stages, lost_stages, taken_count: _count, ...deal } = row;
    return {
      stages: { won: won_stages, lost: lost_stages },
      before: pending_before === null ? null : revivedDeal(pending_before),
      after: toDealRecord(deal),
      domainEvent: revivedEvent(last_event),
    };
  });
}

type SerialisedDeal = Omit<DealRecord, 'last_occurred_at' | 'won_at' | 'created_at' | 'updated_at'> & {
  last_occurred_at: string | null;
  won_at: string | null;
  created_at: string;
  updated_at: string;
};

type SerialisedEvent = Omit<DomainEventRecord, 'occurred_at' | 'created_at'> & {
  occurred_at: string | null;
  created_at: string;
};

function revivedDeal(stored: SerialisedDeal): DealRecord {
  return {
    ...stored,
    last_occurred_at: stored.last_occurred_at === null ? null : new Date(stored.last_occurred_at),
    won_at: stored.won_at === null ? null : new Date(stored.won_at),
    created_at: new Date(stored.created_at),
    updated_at: new Date(stored.updated_at),
  };
}

function revivedEvent(stored: SerialisedEvent): DomainEventRecord {
  return {
    id: stored.id,
    org_id: stored.org_id,
    source_event_id: stored.source_event_id,
    deal_id: stored.deal_id,
    type: stored.type,
    event_type_hint: stored.event_type_hint,
    changes: stored.changes,
    stale: stored.stale,
    occurred_at: stored.occurred_at === null ? null : new Date(stored.occurred_at),
    created_at: new Date(stored.created_at),
  };
}
