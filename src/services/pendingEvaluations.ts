import type { DealRecord } from '../repositories/deals.ts';
import * as feedWriters from '../repositories/feedWriters.ts';
import * as orgs from '../repositories/orgs.ts';
import * as pending from '../repositories/pendingEvaluations.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import type { DealChange, DealChangeListener } from './dealChanges.ts';

/** Evaluates deals' changes, all periods in scope in full (EarningsEngine.evaluateDeferred). */
export type DeferredEvaluator = (tx: Transaction, changes: readonly DealChange[]) => Promise<void>;

/** Reps whose pending deals one transaction evaluates. */
export const PENDING_REPS_PER_TRANSACTION = 4;
/** At most this many pending deals per transaction (a rep with more is evaluated over several). */
export const PENDING_DEALS_PER_TRANSACTION = 4_000;
/** Transactions of pending evaluations run at once. */
export const PENDING_TRANSACTIONS_AT_ONCE = 2;
/** A transaction that deadlocked (another import or batch of the org's deals) is tried again this many times. */
const ATTEMPTS = 3;

/**
 * An import's deferred evaluation (docs/day-one.md, "While an import runs"). Each chunk of an import writes its
 * rows and announces `deal.updated` in its transaction, but instead of evaluating earnings there, records each
 * deal it changed in pending_evaluations, with the deal as it was before the import's first change of it
 * (`recorder`). After the last chunk, and at the start of any import of the org (so that an import killed after
 * some chunks is completed by the next one), `evaluate` takes the pending deals a few reps at a time: each
 * transaction deletes the deals' pending rows, locks the deals, and evaluates their change over the whole import
 * (before the first change, as they are now, naming their last event as cause), every period in scope in full,
 * so that each (rep, period) the import reached is evaluated once, from all of its deals. Until then the org's
 * earnings are those before the import for the deals still pending (eventual, like a plan change's recompute).
 */
export class PendingEvaluations {
  readonly #pool: Transactor;
  readonly #evaluate: DeferredEvaluator;

  /** The deal-change listener of an import's chunks: records the changed deals as pending. */
  readonly recorder: DealChangeListener;

  constructor(pool: Transactor, evaluate: DeferredEvaluator) {
    this.#pool = pool;
    this.#evaluate = evaluate;
    this.recorder = {
      onDealChanged: (tx, change) =>
        pending.record(tx, change.org.id, [{ dealId: change.after.id, before: change.before }]),
      onDealsChanged: async (tx, changes) => {
        const first = changes[0];
        if (!first) return;
        // Each deal's state before its first change of the transaction.
        const before = new Map<string, DealRecord | null>();
        for (const change of changes) if (!before.has(change.after.id)) before.set(change.after.id, change.before);
        await pending.record(
          tx,
          first.org.id,
          [...before].map(([dealId, state]) => ({ dealId, before: state })),
        );
      },
    };
  }

  /** How many of the org's deals wait for their evaluation. */
  count(orgId: string): Promise<number> {
    return pending.countOfOrg(this.#pool.statements, orgId);
  }

  /**
   * Evaluates the org's pending deals, a few reps per transaction (PENDING_REPS_PER_TRANSACTION, at most
   * PENDING_DEALS_PER_TRANSACTION deals), PENDING_TRANSACTIONS_AT_ONCE at once. Returns the deals evaluated;
   * `onProgress` is called after each transaction with the deals evaluated so far and the total.
   */
  async evaluate(orgId: string, onProgress?: (done: number, total: number) => void): Promise<number> {
    const owners = await pending.pendingOwners(this.#pool.statements, orgId);
    if (owners.length === 0) return 0;
    const groups = groupsOf(owners);
    let done = 0;
    let next = 0;
    const worker = async () => {
      while (next < groups.length) {
        const group = groups[next++] as string[];
        const evaluated = await this.#evaluateGroup(orgId, group);
        done += evaluated;
        onProgress?.(done, owners.length);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PENDING_TRANSACTIONS_AT_ONCE, groups.length) }, worker));
    return done;
  }

  async #evaluateGroup(orgId: string, dealIds: readonly string[]): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#pool.run(async (tx) => {
          // Writes earnings: a writer of the org's feeds, and waited for by a recompute that starts meanwhile.
          await feedWriters.joinFeedWriters(tx, orgId);
          const taken = await pending.take(tx, orgId, dealIds);
          if (taken.length === 0) return 0;
          const config = await orgs.loadConfig(tx, orgId);
          await this.#evaluate(
            tx,
            taken.map(({ before, after, domainEvent, stages }) => ({
              org: { id: orgId, stages, config },
              before,
              after,
              domainEvent,
            })),
          );
          return taken.length;
        });
      } catch (error) {
        if (attempt >= ATTEMPTS || (error as { code?: string }).code !== '40P01') throw error;
      }
    }
  }
}

/** The pending deals in groups of a few reps' (at most PENDING_DEALS_PER_TRANSACTION deals each). */
function groupsOf(owners: readonly pending.PendingOwner[]): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let reps = 0;
  let lastRep: string | null | undefined;
  for (const { deal_id, user_id } of owners) {
    if (user_id !== lastRep) {
      reps++;
      lastRep = user_id;
      if (reps > PENDING_REPS_PER_TRANSACTION && current.length > 0) {
        groups.push(current);
        current = [];
        reps = 1;
      }
    }
    if (current.length >= PENDING_DEALS_PER_TRANSACTION) {
      groups.push(current);
      current = [];
      reps = 1;
    }
    current.push(deal_id);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
