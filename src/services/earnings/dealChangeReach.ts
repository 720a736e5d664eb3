import { type EvaluationScope, overrideDepthOf, scopeOfDealChange } from '../../domain/earnings/changeScope.ts';
import { creditedReps } from '../../domain/earnings/credit.ts';
import { dealPeriodMoved } from '../../domain/earnings/dealPeriods.ts';
import { EMPTY_HIERARCHY, managersEver } from '../../domain/earnings/hierarchy.ts';
import type { DealSnapshot, EnginePlanVersion, Rep } from '../../domain/earnings/types.ts';
import { canonicalJson } from '../../domain/json.ts';
import type { CalendarDate } from '../../domain/periods.ts';
import type { DealRecord } from '../../repositories/deals.ts';
import type { DomainEventRecord } from '../../repositories/domainEvents.ts';
import * as earnings from '../../repositories/earnings.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import type { DealChange } from '../dealChanges.ts';
import { creditedRepsOf, dealSnapshotOf } from './engineAdapter.ts';
import { loadHierarchy, type OrgHierarchy } from './hierarchyReader.ts';

// What deal changes reach, for their evaluation (dealEvaluation.ts): each deal's net change, the reps it reaches
// (credited before or after, credited formerly, the managers above them) and, under each plan in force, the scopes
// of those reps' lines it can move.

/** One deal's change over the events evaluated together: as it was before the first, as the last left it. */
export interface NetChange {
  before: DealRecord | null;
  after: DealRecord;
  /** The last of the events that changed the deal: the cause its rows name. */
  domainEvent: DomainEventRecord;
}

/** A deal's change as the engine reads it, with the reps it reaches. */
export interface Item {
  net: NetChange;
  before: DealSnapshot | null;
  after: DealSnapshot;
  /** The reps the change reaches: credited before or after, credited formerly, and the managers above them. */
  reps: Map<string, Rep>;
}

export interface Work {
  plan: EnginePlanVersion;
  rep: Rep;
  scope: EvaluationScope;
  item: Item;
}

/** What the changes reach: the changes that reach a rep, the plans in force, the org's hierarchy and the work. */
export interface ChangeReach {
  reached: Item[];
  plans: EnginePlanVersion[];
  org: OrgHierarchy;
  work: Work[];
}

/**
 * The changes' reach under the plans in force (read by `plansInForce` only when a change reaches a rep), or null
 * when none reaches a rep: then no line can move.
 */
export async function reachOfDealChanges(
  tx: Transaction,
  orgId: string,
  changes: readonly DealChange[],
  today: CalendarDate,
  plansInForce: () => Promise<EnginePlanVersion[]>,
): Promise<ChangeReach | null> {
  const items: Item[] = [];
  for (const net of netChanges(changes)) {
    const before = net.before ? dealSnapshotOf(net.before) : null;
    const after = dealSnapshotOf(net.after);
    // Nothing the engine reads changed (an upsert repeating the deal's state): no line can move.
    if (before && canonicalJson(before) === canonicalJson(after)) continue;
    // Every rep the deal credits before and after (its owner, or the reps of its splits).
    const reps = new Map<string, Rep>();
    for (const deal of [net.before, net.after]) {
      for (const rep of deal ? creditedRepsOf(deal) : []) reps.set(rep.external_id, rep);
    }
    items.push({ net, before, after, reps });
  }
  // When a deal moved to another period, the reps it no longer credits whose rows of it still stand (a clawback of
  // a removed split rep): their lines are dated by the deal and move with it. One query per such deal, only then.
  const formerlyCredited = new Map<Item, string[]>();
  for (const item of items) {
    if (!dealPeriodMoved(item.before, item.after, today)) continue;
    const formerly: string[] = [];
    for (const rep of await earnings.repsWithStandingRowsOfDeal(tx, orgId, item.net.after.id)) {
      if (item.reps.has(rep.external_id)) continue;
      item.reps.set(rep.external_id, rep);
      formerly.push(rep.external_id);
    }
    formerlyCredited.set(item, formerly);
  }
  const reached = items.filter((item) => item.reps.size > 0);
  if (reached.length === 0) return null;
  const plans = await plansInForce();
  // With override chips, the managers above the credited reps (on any day, within the deepest chip) have lines
  // on these deals too. The hierarchy is read before the locks, to know whom to lock; a hierarchy change that
  // commits meanwhile recomputes its managers after waiting for these events (see RepHierarchyAdmin.setManager).
  const depth = Math.max(0, ...plans.map(overrideDepthOf));
  const org: OrgHierarchy =
    depth === 0 ? { hierarchy: EMPTY_HIERARCHY, reps: new Map() } : await loadHierarchy(tx, orgId);
  for (const item of reached) {
    for (const deal of [item.before, item.after]) {
      for (const credited of deal ? creditedReps(deal) : []) {
        for (const manager of managersEver(org.hierarchy, credited, depth)) {
          const found = org.reps.get(manager);
          if (found) item.reps.set(found.external_id, found);
        }
      }
    }
  }
  const work: Work[] = reached.flatMap((item) =>
    plans.flatMap((plan) =>
      scopeOfDealChange(plan, item.before, item.after, today, formerlyCredited.get(item) ?? [], org.hierarchy).flatMap(
        (scope) => {
          const rep = item.reps.get(scope.rep_external_id);
          return rep ? [{ plan, rep, scope, item }] : [];
        },
      ),
    ),
  );
  return { reached, plans, org, work };
}

/** Each deal's change over the events, in the order of each deal's first event. */
function netChanges(changes: readonly DealChange[]): NetChange[] {
  const byDeal = new Map<string, NetChange>();
  for (const change of changes) {
    const found = byDeal.get(change.after.id);
    if (found) {
      found.after = change.after;
      found.domainEvent = change.domainEvent;
    } else {
      byDeal.set(change.after.id, { before: change.before, after: change.after, domainEvent: change.domainEvent });
    }
  }
  return [...byDeal.values()];
}
