import * as feedWriters from '../repositories/feedWriters.ts';
import type { Transactor } from '../repositories/transaction.ts';

// The one change-feed horizon (docs/architecture.md, "The change-feed horizon"): the deals and earnings lists stop
// their pages at it, and a recompute waits with it for the deal events already in progress.

/** How long a page waits for the org's writers in progress before it stops before them instead. */
export const FEED_WRITERS_WAIT_MS = 250;

/** The change-feed horizon of an org: rows stamped before it can no longer be overtaken by a commit. */
export interface ChangeHorizon {
  /** Truncated to milliseconds, the precision of `updated_at` and `created_at`. */
  horizon: Date;
  /** A feed-writing transaction of the org was in progress when the horizon was taken. */
  writesInFlight: boolean;
}

/**
 * The horizon of the org's feeds, taken before the page is read (in a later statement). Writers in progress are
 * waited for, up to FEED_WRITERS_WAIT_MS: then every row stamped before the moment they were found is committed.
 * When the wait runs out (a long import chunk, a recompute of the org), the page stops before the earliest
 * millisecond those writers may stamp. Other orgs' writers are never waited for.
 */
export async function feedHorizon(db: Transactor, orgId: string): Promise<ChangeHorizon> {
  const found = await feedWriters.writersInFlight(db.statements, orgId);
  if (found.slots.length === 0) return { horizon: found.at, writesInFlight: false };
  const ended = await db.run((tx) => feedWriters.awaitSlots(tx, orgId, found.slots, FEED_WRITERS_WAIT_MS));
  return { horizon: ended ? found.at : found.settledBefore, writesInFlight: true };
}

/**
 * Waits until every feed writer of the org in progress at the moment of the call has ended (a writer that starts
 * later may be waited for too, never one of another org): after that, no deal event can still book rows from a plan
 * state older than the call (see evaluateDealChanges). Waits as long as they run, in bounded steps.
 */
export async function waitForFeedWriters(db: Transactor, orgId: string): Promise<void> {
  const { slots } = await feedWriters.writersInFlight(db.statements, orgId);
  if (slots.length === 0) return;
  // Bounded steps: each ends with its transaction's locks released, so none holds a free slot for long.
  for (let ended = false; !ended; ) {
    ended = await db.run((tx) => feedWriters.awaitSlots(tx, orgId, slots, FEED_WRITERS_WAIT_MS));
  }
}
