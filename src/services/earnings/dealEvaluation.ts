import type { EvaluationScope } from '../../domain/earnings/changeScope.ts';
import { compareKeys, wonOrderKey } from '../../domain/earnings/dealPeriods.ts';
import { evaluateScope } from '../../domain/earnings/scopeEvaluation.ts';
import { type ChipStanding, evaluateFromStandings, standingsOf, UNDATED } from '../../domain/earnings/standings.ts';
import type { DealSnapshot, EnginePlanVersion, LineTarget, Rep, TraceCause } from '../../domain/earnings/types.ts';
import { canonicalJson } from '../../domain/json.ts';
import { type PeriodId, periodBounds } from '../../domain/periods.ts';
import * as adjustments from '../../repositories/adjustments.ts';
import * as evaluationLocks from '../../repositories/evaluationLocks.ts';
import * as periodStandings from '../../repositories/periodStandings.ts';
import * as repQuotas from '../../repositories/repQuotas.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import type { DealChange } from '../dealChanges.ts';
import { book } from './booking.ts';
import type { EvaluationContext } from './context.ts';
import { type Item, type NetChange, reachOfDealChanges, type Work } from './dealChangeReach.ts';
import { drawTargetsOfDealChange } from './draws.ts';
import { dealsReadBy } from './hierarchyReader.ts';

export interface EvaluationOptions {
  /**
   * Every period in scope is evaluated in full from the deals as they are now, never from the running totals: for
   * an import's deferred evaluation (src/services/pendingEvaluations.ts), where the totals may not count deals of
   * the import evaluated in other transactions, and where each (rep, period) is evaluated once anyway.
   */
  inFull?: boolean;
}

/**
 * In the ingestion transaction, after the events were applied and with their deals' rows locked: for each active
 * plan, the lines the changes can affect (scopeOfDealChange: the credited reps' lines and their managers' override
 * lines), evaluated and booked. One change is what one deal event evaluates; several (the events of a batch, in
 * the order they were applied) are evaluated together, to leave what evaluating each after its event would have:
 * each deal counts with its change over all of them (as before the first, as after the last); each rep's running
 * totals are moved by the changes in turn while they can decide the changed deals' lines, and once one cannot,
 * the rep's periods those changes touch are evaluated in full, once, from the deals as the last events left them.
 * The rows written name, as their cause, the last event of their deal among the changes, or for lines of other
 * deals and of the period (a tier, a bonus), the last change that reached their rep.
 */
export async function evaluateDealChanges(
  tx: Transaction,
  changes: readonly DealChange[],
  context: EvaluationContext,
  options: EvaluationOptions = {},
): Promise<void> {
  const last = changes.at(-1);
  if (!last) return;
  const orgId = last.org.id;
  // The plans in force as of the events' first statements (OrgConfigCache): an org without plans locks nothing.
  // Reading them before the locks is safe because a recompute first waits for every deal event already in
  // progress (waitForFeedWriters), and these events were in progress from their first statements on.
  const { config } = last.org;
  if (config.plansInForce.length === 0) return;
  const today = context.today();
  const reach = await reachOfDealChanges(tx, orgId, changes, today, () =>
    context.versions.of(tx, orgId, config.plansInForce),
  );
  if (!reach) return;
  const { reached, plans, org, work } = reach;
  const money = { default_currency: config.defaultCurrency, rates: config.rates };
  const allReps = new Map<string, Rep>();
  for (const item of reached) for (const rep of item.reps.values()) allReps.set(rep.user_id, rep);
  // The reps' locks, one batch in id order (deal events, a recompute and a hierarchy change never wait for each
  // other in a circle), and the read of the running totals of the periods in scope are issued together, in that
  // order: one round trip, and the read starts only once every lock is held, so an evaluation that waited sees
  // the totals as they are now.
  const periodWork = work.filter((entry) => entry.scope.periods.length > 0);
  const repIds = [...allReps.keys()];
  const [, stored, books, creditBook] = await Promise.all([
    evaluationLocks.lockRepsForEvaluation(tx, orgId, repIds),
    options.inFull
      ? []
      : periodStandings.standingsOf(
          tx,
          orgId,
          config.version,
          periodWork.map((entry) => entry.plan.version_id),
          periodWork.map((entry) => entry.rep.user_id),
          [...periodWork.flatMap((entry) => entry.scope.periods), UNDATED],
        ),
    // The reps' quota tables and start dates, read under the locks like the totals (a quota change recomputes after).
    repQuotas.booksOfReps(tx, orgId, repIds),
    // The reps' adjustments that count toward attainment: a period holding one is evaluated in full, counting them.
    adjustments.attainmentCreditsOfReps(tx, orgId, repIds),
  ]);
  const quotasOf = (rep: Rep, planId: string) => repQuotas.quotasUnder(books.get(rep.user_id), planId);
  const creditsOf = (rep: Rep) => {
    const credits = creditBook.get(rep.user_id);
    return credits ? { credits } : {};
  };
  // Tiered and attainment lines depend on the rep's whole period. While each change in turn appends to its period's
  // count (or leaves it alone) and moves no other line, the running totals give the changed deal's lines of those
  // chips; from the first change of a rep and plan they cannot decide on, that change's periods and those of every
  // later one are read and evaluated in full, and their totals counted again.
  const totals = new Map<string, periodStandings.RepStanding>();
  const standingKey = (entry: periodStandings.RepStanding) =>
    `${entry.plan_version_id}/${entry.user_id}/${entry.standing.chip_id}/${entry.standing.period_id}`;
  const keep = (entry: periodStandings.RepStanding) => totals.set(standingKey(entry), entry);
  const fromTotals = new Map<Work, LineTarget[]>();
  const full: Array<{ plan: EnginePlanVersion; rep: Rep; entries: Work[] }> = [];
  const storedByRep = new Map<string, Map<string, ChipStanding>>();
  // What is stored now, by the key of `totals`: a standing the changes leave as it was is not written again.
  const storedByKey = new Map(stored.map((row) => [standingKey(row), row.standing]));
  for (const row of stored) {
    const key = `${row.plan_version_id}/${row.user_id}`;
    const held = storedByRep.get(key) ?? new Map<string, ChipStanding>();
    held.set(`${row.standing.chip_id}/${row.standing.period_id}`, row.standing);
    storedByRep.set(key, held);
  }
  const orderOf = new Map(reached.map((item) => [item, wonOrderKey(item.after)]));
  for (const group of groupBy(periodWork, (entry) => `${entry.plan.version_id}/${entry.rep.user_id}`)) {
    const { plan, rep } = group[0] as Work;
    const held = new Map(storedByRep.get(`${plan.version_id}/${rep.user_id}`) ?? []);
    // In their counting order, so that a burst of a period's deals appends to its count one after another.
    const ordered = [...group].sort((a, b) =>
      compareKeys(orderOf.get(a.item) as string[], orderOf.get(b.item) as string[]),
    );
    const inFull: Work[] = [];
    for (const entry of ordered) {
      const decided =
        inFull.length > 0 || options.inFull
          ? null
          : evaluateFromStandings({
              plan,
              rep,
              chips: entry.scope.period_chips,
              before: entry.item.before,
              after: entry.item.after,
              standings: held,
              today,
              money,
              quotas: quotasOf(rep, plan.plan_id),
              ...creditsOf(rep),
            });
      if (!decided) {
        inFull.push(entry);
        continue;
      }
      fromTotals.set(entry, decided.targets);
      for (const standing of decided.standings) {
        held.set(`${standing.chip_id}/${standing.period_id}`, standing);
        keep({ plan_version_id: plan.version_id, user_id: rep.user_id, standing });
      }
    }
    if (inFull.length > 0) full.push({ plan, rep, entries: inFull });
  }
  // One read per rep, over the periods of all of its full evaluations (under every plan).
  const fullReps = new Map(full.map((group) => [group.rep.user_id, group.rep]));
  const read = await Promise.all(
    [...fullReps.values()].map((rep) => {
      const periods = full
        .filter((group) => group.rep.user_id === rep.user_id)
        .flatMap((group) => periodsOf(group.entries));
      return dealsReadBy(tx, orgId, rep, plans, org, spanOf(periods)).then((deals) => [rep.user_id, deals] as const);
    }),
  );
  const dealsByRep = new Map<string, DealSnapshot[]>(read);
  // A commission, flat or override line without caps depends on its deal alone: only the changed deal's is
  // evaluated. Tiered, attainment and capped lines depend on the rep's whole period: all of them are evaluated,
  // unless the running totals decided them.
  const position = new Map(plans.flatMap((plan) => plan.chips.map((chip, index) => [chip.id, index] as const)));
  const byChip = (a: LineTarget, b: LineTarget) =>
    (position.get(a.line.chip_id) ?? 0) - (position.get(b.line.chip_id) ?? 0);
  // A full evaluation's lines go with the last of its changes in the order of `work`, as one change's do.
  const fullLines = new Map<Work, LineTarget[]>();
  const workIndex = new Map(work.map((entry, index) => [entry, index]));
  for (const { plan, rep, entries } of full) {
    const periods = periodsOf(entries);
    // The deals as the last events left them: those read, with each changed deal as its change left it.
    const changed = new Map(entries.map((entry) => [entry.item.after.id, entry.item.after]));
    const deals = [...(dealsByRep.get(rep.user_id) ?? []).filter((deal) => !changed.has(deal.id)), ...changed.values()];
    for (const standing of standingsOf({ plan, rep, deals, periods, today, money, ...creditsOf(rep) })) {
      keep({ plan_version_id: plan.version_id, user_id: rep.user_id, standing });
    }
    const scope: EvaluationScope = {
      rep_external_id: rep.external_id,
      deal_chips: [],
      period_chips: [...new Set(entries.flatMap((entry) => entry.scope.period_chips))],
      periods,
    };
    const lastInWork = entries.reduce((a, b) => ((workIndex.get(a) ?? 0) > (workIndex.get(b) ?? 0) ? a : b));
    fullLines.set(
      lastInWork,
      evaluateScope({
        plan,
        rep,
        changed: lastInWork.item.after,
        alsoChanged: [...changed.values()],
        today,
        money,
        hierarchy: org.hierarchy,
        quotas: quotasOf(rep, plan.plan_id),
        ...creditsOf(rep),
        scope,
        deals,
      }).targets,
    );
  }
  const targets: LineTarget[] = [];
  for (const entry of work) {
    const { plan, rep, scope, item } = entry;
    const dealLines = evaluateScope({
      plan,
      rep,
      changed: item.after,
      today,
      money,
      hierarchy: org.hierarchy,
      quotas: quotasOf(rep, plan.plan_id),
      scope: { ...scope, period_chips: [], periods: [] },
      deals: [],
    }).targets;
    targets.push(...[...dealLines, ...(fromTotals.get(entry) ?? []), ...(fullLines.get(entry) ?? [])].sort(byChip));
  }
  // Draw lines of settled (locked) periods the deals are or were in, and of every settled period after them.
  for (const item of reached) {
    const { before, after } = item;
    targets.push(
      ...(await drawTargetsOfDealChange(tx, orgId, plans, [...item.reps.values()], { before, after }, today, org)),
    );
  }
  // Each line once. A line the running totals decided for a change before a later change of the rep's period asked
  // for a full evaluation is evaluated again there, from the deals as the last events left them: that one stands.
  const byLine = new Map(targets.map((target) => [target.line.line_key, target]));
  for (const lines of fullLines.values()) for (const target of lines) byLine.set(target.line.line_key, target);
  const causes = new Map<string, TraceCause>();
  const causeOf = (net: NetChange): TraceCause => {
    const found = causes.get(net.domainEvent.id);
    if (found) return found;
    const cause: TraceCause = {
      domain_event_id: net.domainEvent.id,
      event_kind: net.domainEvent.type,
      deal_id: net.after.id,
      deal_external_id: net.after.external_id,
      changes: net.domainEvent.changes.map((fieldChange) => ({
        field: fieldChange.field,
        from: fieldChange.old,
        to: fieldChange.new,
      })),
    };
    causes.set(net.domainEvent.id, cause);
    return cause;
  };
  const byDeal = new Map(reached.map((item) => [item.net.after.id, item.net]));
  const byRep = new Map<string, NetChange>();
  for (const item of reached) for (const rep of item.reps.values()) byRep.set(rep.user_id, item.net);
  const lastNet = (reached.at(-1) as Item).net;
  const netOf = (target: LineTarget): NetChange =>
    (target.line.deal_id === null ? undefined : byDeal.get(target.line.deal_id)) ??
    byRep.get(target.line.user_id) ??
    lastNet;
  // The moved standings are written in the round trip of the booking's first reads, and awaited after the booking:
  // when the write fails, its own error is thrown rather than the booking's of the aborted transaction.
  const moved = [...totals.entries()].flatMap(([key, entry]) => {
    const before = storedByKey.get(key);
    return before && sameStanding(before, entry.standing) ? [] : [entry];
  });
  const writing = periodStandings.writeStandings(tx, orgId, config.version, moved);
  writing.catch(() => {});
  try {
    await book(tx, {
      orgId,
      targets: [...byLine.values()],
      droppedLines: [],
      triggeringDomainEventId: lastNet.domainEvent.id,
      cause: causeOf(lastNet),
      causeOf: (target) => {
        const net = netOf(target);
        return { triggeringDomainEventId: net.domainEvent.id, cause: causeOf(net) };
      },
      endpoints: config,
    });
  } finally {
    await writing;
  }
}

/** Whether two standings of one chip and period count the same: the stored one then needs no write. */
function sameStanding(a: ChipStanding, b: ChipStanding): boolean {
  return (
    a.total_cents === b.total_cents &&
    a.counted === b.counted &&
    a.unpriced === b.unpriced &&
    a.open === b.open &&
    canonicalJson(a.last) === canonicalJson(b.last)
  );
}

function groupBy<T>(values: readonly T[], keyOf: (value: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const key = keyOf(value);
    const group = groups.get(key);
    if (group) group.push(value);
    else groups.set(key, [value]);
  }
  return [...groups.values()];
}

/** The periods of the entries' scopes, each once. */
function periodsOf(entries: readonly Work[]): PeriodId[] {
  return [...new Set(entries.flatMap((entry) => entry.scope.periods))];
}

/** The first and last day of the periods, for reading the deals that can fall in them. */
function spanOf(periods: readonly PeriodId[]): { from: string; to: string } {
  const bounds = periods.map(periodBounds);
  return {
    from: bounds.map((period) => period.starts_on).reduce((a, b) => (a < b ? a : b)),
    to: bounds.map((period) => period.ends_on).reduce((a, b) => (a > b ? a : b)),
  };
}
