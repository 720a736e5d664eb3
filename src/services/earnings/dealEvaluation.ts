import { overrideDepthOf, scopeOfDealChange } from '../../domain/earnings/changeScope.ts';
import { creditedReps } from '../../domain/earnings/credit.ts';
import { dealPeriodMoved } from '../../domain/earnings/dealPeriods.ts';
import { EMPTY_HIERARCHY, managersEver } from '../../domain/earnings/hierarchy.ts';
import { evaluateScope } from '../../domain/earnings/scopeEvaluation.ts';
import { evaluateFromStandings, standingsOf, UNDATED } from '../../domain/earnings/standings.ts';
import type { DealSnapshot, LineTarget, Rep } from '../../domain/earnings/types.ts';
import { canonicalJson } from '../../domain/json.ts';
import { type PeriodId, periodBounds } from '../../domain/periods.ts';
import * as earnings from '../../repositories/earnings.ts';
import * as evaluationLocks from '../../repositories/evaluationLocks.ts';
import * as periodStandings from '../../repositories/periodStandings.ts';
import * as repQuotas from '../../repositories/repQuotas.ts';
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
  // other in a circle), and the read of the running totals of the periods in scope are issued together, in that
  // order: one round trip, and the read starts only once every lock is held, so an evaluation that waited sees
  // the totals as they are now.
  const periodWork = work.filter((item) => item.scope.periods.length > 0);
  const repIds = [...reps.values()].map((rep) => rep.user_id);
  const [, stored, books] = await Promise.all([
    evaluationLocks.lockRepsForEvaluation(tx, orgId, repIds),
    periodStandings.standingsOf(
      tx,
      orgId,
      config.version,
      periodWork.map((item) => item.plan.version_id),
      periodWork.map((item) => item.rep.user_id),
      [...periodWork.flatMap((item) => item.scope.periods), UNDATED],
    ),
    // The reps' quota tables and start dates, read under the locks like the totals (a quota change recomputes after).
    repQuotas.booksOfReps(tx, orgId, repIds),
  ]);
  const quotasOf = (rep: Rep, planId: string) => repQuotas.quotasUnder(books.get(rep.user_id), planId);
  // Tiered and attainment lines depend on the rep's whole period. When the change appends to the period's count
  // (or leaves it alone) and moves no other line, the running totals give the changed deal's lines of those chips;
  // otherwise the periods' deals are read, every line of them evaluated, and the totals counted again.
  const totals: periodStandings.RepStanding[] = [];
  const fromTotals = new Map<(typeof work)[number], LineTarget[]>();
  for (const item of periodWork) {
    const { plan, rep, scope } = item;
    const held = new Map(
      stored
        .filter((row) => row.plan_version_id === plan.version_id && row.user_id === rep.user_id)
        .map((row) => [`${row.standing.chip_id}/${row.standing.period_id}`, row.standing]),
    );
    const decided = evaluateFromStandings({
      plan,
      rep,
      chips: scope.period_chips,
      before,
      after,
      standings: held,
      today,
      money,
      quotas: quotasOf(rep, plan.plan_id),
    });
    if (!decided) continue;
    fromTotals.set(item, decided.targets);
    for (const standing of decided.standings)
      totals.push({ plan_version_id: plan.version_id, user_id: rep.user_id, standing });
  }
  const full = periodWork.filter((item) => !fromTotals.has(item));
  const read = await Promise.all(
    [...new Set(full.map((item) => item.rep))].map((rep) => {
      const periods = full.filter((item) => item.rep === rep).flatMap((item) => item.scope.periods);
      return dealsReadBy(tx, orgId, rep, plans, org, spanOf(periods)).then((deals) => [rep.user_id, deals] as const);
    }),
  );
  const dealsByRep = new Map<string, DealSnapshot[]>(read);
  // A commission, flat or override line without caps depends on its deal alone: only the changed deal's is
  // evaluated. Tiered, attainment and capped lines depend on the rep's whole period: all of them are evaluated,
  // unless the running totals decided them.
  const targets = work.flatMap((item) => {
    const { plan, rep, scope } = item;
    const common = {
      plan,
      rep,
      changed: after,
      today,
      money,
      hierarchy: org.hierarchy,
      quotas: quotasOf(rep, plan.plan_id),
    };
    const decided = fromTotals.get(item);
    if (decided) {
      const position = new Map(plan.chips.map((chip, index) => [chip.id, index]));
      return [
        ...evaluateScope({ ...common, scope: { ...scope, period_chips: [], periods: [] }, deals: [] }).targets,
        ...decided,
      ].sort((a, b) => (position.get(a.line.chip_id) ?? 0) - (position.get(b.line.chip_id) ?? 0));
    }
    const deals = dealsByRep.get(rep.user_id) ?? [];
    if (scope.periods.length > 0) {
      const counted = [...deals.filter((deal) => deal.id !== after.id), after];
      for (const standing of standingsOf({ plan, rep, deals: counted, periods: scope.periods, today, money })) {
        totals.push({ plan_version_id: plan.version_id, user_id: rep.user_id, standing });
      }
    }
    return evaluateScope({ ...common, scope, deals }).targets;
  });
  await periodStandings.writeStandings(tx, orgId, config.version, totals);
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
