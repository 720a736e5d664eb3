import { overrideDepthOf, scopeOfDealChange } from '../../domain/earnings/changeScope.ts';
import { creditedReps } from '../../domain/earnings/credit.ts';
import { dealPeriodMoved } from '../../domain/earnings/dealPeriods.ts';
import { EMPTY_HIERARCHY, managersEver } from '../../domain/earnings/hierarchy.ts';
import { evaluateScope } from '../../domain/earnings/scopeEvaluation.ts';
import type { DealSnapshot, Rep } from '../../domain/earnings/types.ts';
import { canonicalJson } from '../../domain/json.ts';
import { type PeriodId, periodBounds } from '../../domain/periods.ts';
import * as earnings from '../../repositories/earnings.ts';
import * as evaluationLocks from '../../repositories/evaluationLocks.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import type { DealChange } from '../dealChanges.ts';
import { book } from './booking.ts';
import type { EvaluationContext } from './context.ts';
import { drawTargetsOfDealChange } from './draws.ts';
import { creditedRepsOf, dealSnapshotOf } from './engineAdapter.ts';
import { dealsReadBy, loadHierarchy, type OrgHierarchy } from './hierarchyReader.ts';

/**
 * In the ingestion transaction, with the deal row locked: for each active plan, the lines the change can
 * affect (scopeOfDealChange: the credited reps' lines and their managers' override lines), evaluated and booked.
 */
export async function evaluateDealChange(
  tx: Transaction,
  change: DealChange,
  context: EvaluationContext,
): Promise<void> {
  const orgId = change.org.id;
  // The plans in force as of the event's first statement (OrgConfigCache): an org without plans locks nothing.
  // Reading them before the locks is safe because a recompute first waits for every deal event already in
  // progress (waitForDealWritersBefore), and this event was in progress from its first statement on.
  const { config } = change.org;
  if (config.plansInForce.length === 0) return;
  const before = change.before ? dealSnapshotOf(change.before) : null;
  const after = dealSnapshotOf(change.after);
  // Nothing the engine reads changed (an upsert repeating the deal's state): no line can move.
  if (before && canonicalJson(before) === canonicalJson(after)) return;
  // Every rep the deal credits before and after (its owner, or the reps of its splits).
  const reps = new Map<string, Rep>();
  for (const deal of [change.before, change.after]) {
    for (const rep of deal ? creditedRepsOf(deal) : []) reps.set(rep.external_id, rep);
  }
  // When the deal moved to another period, the reps it no longer credits whose rows of it still stand (a
  // clawback of a removed split rep): their lines are dated by the deal and move with it. One query, only then.
  const today = context.today();
  const formerlyCredited: string[] = [];
  if (dealPeriodMoved(before, after, today)) {
    for (const rep of await earnings.repsWithStandingRowsOfDeal(tx, orgId, change.after.id)) {
      if (reps.has(rep.external_id)) continue;
      reps.set(rep.external_id, rep);
      formerlyCredited.push(rep.external_id);
    }
  }
  if (reps.size === 0) return;
  const plans = await context.versions.of(tx, orgId, config.plansInForce);
  // With override chips, the managers above the credited reps (on any day, within the deepest chip) have lines
  // on this deal too. The hierarchy is read before the locks, to know whom to lock; a hierarchy change that
  // commits meanwhile recomputes its managers after waiting for this event (see RepHierarchyAdmin.setManager).
  const depth = Math.max(0, ...plans.map(overrideDepthOf));
  const org: OrgHierarchy =
    depth === 0 ? { hierarchy: EMPTY_HIERARCHY, reps: new Map() } : await loadHierarchy(tx, orgId);
  for (const deal of [before, after]) {
    for (const credited of deal ? creditedReps(deal) : []) {
      for (const manager of managersEver(org.hierarchy, credited, depth)) {
        const found = org.reps.get(manager);
        if (found) reps.set(found.external_id, found);
      }
    }
  }
  const money = { default_currency: config.defaultCurrency, rates: config.rates };
  const work = plans.flatMap((plan) =>
    scopeOfDealChange(plan, before, after, today, formerlyCredited, org.hierarchy).flatMap((scope) => {
      const rep = reps.get(scope.rep_external_id);
      return rep ? [{ plan, rep, scope }] : [];
    }),
  );
  // The reps' locks, one batch in id order (a deal event, a recompute and a hierarchy change never wait for each
  // other in a circle), and the reads of their deals are issued together, in that order: one round trip, and each
  // read starts only once every lock is held, so an evaluation that waited sees the deals as they are now.
  const locked = evaluationLocks.lockRepsForEvaluation(
    tx,
    orgId,
    [...reps.values()].map((rep) => rep.user_id),
  );
  const reads = [...reps.values()].flatMap((rep) => {
    const periods = work.filter((item) => item.rep === rep).flatMap((item) => item.scope.periods);
    if (periods.length === 0) return [];
    return [dealsReadBy(tx, orgId, rep, plans, org, spanOf(periods)).then((deals) => [rep.user_id, deals] as const)];
  });
  const [, read] = await Promise.all([locked, Promise.all(reads)]);
  const dealsByRep = new Map<string, DealSnapshot[]>(read);
  // A commission, flat or override line without caps depends on its deal alone: only the changed deal's is
  // evaluated. Tiered, attainment and capped lines depend on the rep's whole period: all of them are evaluated.
  const targets = work.flatMap(
    ({ plan, rep, scope }) =>
      evaluateScope({
        plan,
        rep,
        scope,
        changed: after,
        deals: dealsByRep.get(rep.user_id) ?? [],
        today,
        money,
        hierarchy: org.hierarchy,
      }).targets,
  );
  // Draw lines of settled (locked) periods the deal is or was in, and of every settled period after them.
  targets.push(...(await drawTargetsOfDealChange(tx, orgId, plans, [...reps.values()], { before, after }, today, org)));
  await book(tx, {
    orgId,
    targets,
    droppedLines: [],
    triggeringDomainEventId: change.domainEvent.id,
    cause: {
      domain_event_id: change.domainEvent.id,
      event_kind: change.domainEvent.type,
      deal_id: change.after.id,
      deal_external_id: change.after.external_id,
      changes: change.domainEvent.changes.map((fieldChange) => ({
        field: fieldChange.field,
        from: fieldChange.old,
        to: fieldChange.new,
      })),
    },
    endpoints: config,
  });
}

/** The first and last day of the periods, for reading the deals that can fall in them. */
function spanOf(periods: readonly PeriodId[]): { from: string; to: string } {
  const bounds = periods.map(periodBounds);
  return {
    from: bounds.map((period) => period.starts_on).reduce((a, b) => (a < b ? a : b)),
    to: bounds.map((period) => period.ends_on).reduce((a, b) => (a > b ? a : b)),
  };
}
