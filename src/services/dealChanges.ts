import type { StageLists } from '../domain/deals/projection.ts';
import type { DealRecord } from '../repositories/deals.ts';
import type { DomainEventRecord } from '../repositories/domainEvents.ts';
import type { OrgConfig } from '../repositories/orgs.ts';
import type { Transaction } from '../repositories/transaction.ts';

/** One applied deal event, as the ingestion transaction hands it on. */
export interface DealChange {
  /** The org as of the event's first statement: its stage lists, plans in force and webhook endpoints. */
  org: { id: string; stages: StageLists; config: OrgConfig };
  /** Null when the event created the deal. */
  before: DealRecord | null;
  after: DealRecord;
  domainEvent: DomainEventRecord;
}

/**
 * Called inside the ingestion transaction after the projection moved, with the deal row still locked, for every
 * applied event (not for stale ones or replays, which change nothing). What it writes commits or rolls back with
 * the event, so a read after the response sees it; if it throws, the event is refused with a 500 and nothing is
 * kept. The earnings engine plugs in here.
 */
export interface DealChangeListener {
  onDealChanged(tx: Transaction, change: DealChange): Promise<void>;
  /**
   * Several events of one transaction (a batch: DealIngestion.ingestMany), called once after all of them were
   * applied, with the changes in the order they were applied; the deals' rows are locked and show the last change.
   * What it writes must leave what `onDealChanged` called after each change would have left. Without it, each
   * change is handed to `onDealChanged` in turn (see dealsChanged).
   */
  onDealsChanged?(tx: Transaction, changes: readonly DealChange[]): Promise<void>;
}

/** Hands a transaction's changes to the listener: at once when it takes several, else one by one in order. */
export async function dealsChanged(
  listener: DealChangeListener,
  tx: Transaction,
  changes: readonly DealChange[],
): Promise<void> {
  if (changes.length === 0) return;
  if (listener.onDealsChanged) return listener.onDealsChanged(tx, changes);
  for (const change of changes) await listener.onDealChanged(tx, change);
}
