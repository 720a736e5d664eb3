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
 * is now and its last applied domain event. A row another transaction took meanwhile is not returned. Each deal is
 * found by its id given, one primary-key lookup (a LATERAL subquery that locks rows is never flattened into a join),
 * whatever the statistics: a join to the taken rows, planned on a `deals` never analysed (a new install's first
 * import), read every deal of the org for each group of reps, and `id = ANY(...)` on `deals` was planned as a scan
 * of the org's whole range of another index (deals_org_id_status_updated_at_id_idx, the id its last column). The
 * last event is found by its primary key beside its deal, and its columns come as columns, not as one JSON document
 * built per row and parsed again here.
 */
export async function take(tx: Transaction, orgId: string, dealIds: readonly string[]): Promise<TakenDeal[]> {
  if (dealIds.length === 0) return [];
  const rows = await tx.query<
    DealRow & TakenEventColumns & { pending_before: SerialisedDeal | null; taken_count: number }
  >(
    named('pending_evaluations_take', {
      text: `WITH taken AS (
               DELETE FROM pending_evaluations
               WHERE org_id = $1 AND deal_id = ANY($2::text[])
               RETURNING deal_id, before
             ), locked AS (
               SELECT d.* FROM (
                 SELECT wanted.deal_id FROM unnest($2::text[]) AS wanted(deal_id) ORDER BY wanted.deal_id OFFSET 0
               ) wanted
               CROSS JOIN LATERAL (
                 SELECT ${QUALIFIED_DEAL_COLUMNS}, e.id AS event_id, e.source_event_id AS event_source_event_id,
                        e.deal_id AS event_deal_id, e.type AS event_type, e.event_type_hint AS event_type_hint,
                        e.changes AS event_changes, e.stale AS event_stale, e.occurred_at AS event_occurred_at,
                        e.created_at AS event_created_at
                 FROM deals
                 JOIN domain_events e ON e.org_id = $1 AND e.id = deals.last_domain_event_id
                 WHERE deals.org_id = $1 AND deals.id = wanted.deal_id
                 FOR NO KEY UPDATE OF deals
               ) d
             )
             SELECT locked.*, taken.before AS pending_before, o.won_stages, o.lost_stages,
                    (SELECT count(*) FROM taken)::int AS taken_count
             FROM locked
             JOIN taken ON taken.deal_id = locked.id
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
    const {
      pending_before,
      won_stages,
      lost_stages,
      taken_count: _count,
      event_id,
      event_source_event_id,
      event_deal_id,
      event_type,
      event_type_hint,
      event_changes,
      event_stale,
      event_occurred_at,
      event_created_at,
      ...deal
    } = row;
    return {
      stages: { won: won_stages, lost: lost_stages },
      before: pending_before === null ? null : revivedDeal(pending_before),
      after: toDealRecord(deal),
      domainEvent: {
        id: event_id,
        org_id: orgId,
        source_event_id: event_source_event_id,
        deal_id: event_deal_id,
        type: event_type,
        event_type_hint,
        changes: event_changes,
        stale: event_stale,
        occurred_at: event_occurred_at,
        created_at: event_created_at,
      },
    };
  });
}

/** The deal's columns in take's statement, where domain_events has columns of the same names. */
const QUALIFIED_DEAL_COLUMNS = DEAL_COLUMNS.split(', ')
  .map((column) => `deals.${column}`)
  .join(', ');

/** The last domain event of a taken deal, as take's statement returns its columns. */
interface TakenEventColumns {
  won_stages: string[];
  lost_stages: string[];
  event_id: string;
  event_source_event_id: string;
  event_deal_id: string;
  event_type: DomainEventRecord['type'];
  event_type_hint: string;
  event_changes: DomainEventRecord['changes'];
  event_stale: boolean;
  event_occurred_at: Date | null;
  event_created_at: Date;
}

type SerialisedDeal = Omit<DealRecord, 'last_occurred_at' | 'won_at' | 'created_at' | 'updated_at'> & {
  last_occurred_at: string | null;
  won_at: string | null;
  created_at: string;
  updated_at: string;
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
