import { randomUUID } from 'node:crypto';
import type { AdminActor } from '../audit/adminEntries.ts';
import { repsReadBy } from '../domain/earnings/changeScope.ts';
import { DRAW_CHIP_KEY, DRAW_RECOVERY_CHIP_KEY, drawChipId, readPlanDraw } from '../domain/earnings/draws.ts';
import {
  compareScenarios,
  draftEnginePlan,
  periodsInSpan,
  type ScenarioComparison,
  type ScenarioRep,
  type ScenarioSpan,
  scenarioOfRep,
  scenarioTargets,
  summariseScenario,
} from '../domain/earnings/scenario.ts';
import type { DealSnapshot, EnginePlanVersion, LineTarget, Rep } from '../domain/earnings/types.ts';
import { isPeriodId, periodBounds, periodKindOf } from '../domain/periods.ts';
import { describeProblem, type PlanFileFormat, readPlanFile } from '../domain/plans/planFile.ts';
import type { PlanDefinition } from '../domain/plans/types.ts';
import { Refusal } from '../domain/refusal.ts';
import { newId } from '../lib/ids.ts';
import * as adjustments from '../repositories/adjustments.ts';
import * as dealSnapshots from '../repositories/dealSnapshots.ts';
import * as orgs from '../repositories/orgs.ts';
import * as periodRecords from '../repositories/periods.ts';
import * as plans from '../repositories/plans.ts';
import * as repQuotas from '../repositories/repQuotas.ts';
import type { ScenarioRecord } from '../repositories/scenarios.ts';
import * as scenarios from '../repositories/scenarios.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import { loadHierarchy, type OrgHierarchy } from './earnings/hierarchyReader.ts';
import type { PlanRollout, RolledOutApply } from './planRollout.ts';

// Plan scenarios (docs/scenarios.md): a draft plan file run over a span of closed history, rep by rep, beside what
// was actually paid. A run is started by a request and done off it by this process's scenario worker, in batches of
// reps, each batch read in one transaction and its results written in another, yielding to the event loop between
// batches so that live traffic keeps its turn; a cancel is seen at the next batch. Nothing but the scenario's own
// tables is written. Promoting a scenario applies its plan file through the normal rollout (acceptance requests,
// audit, recompute).

export interface StartScenarioInput {
  orgId: string;
  /** The draft plan file's text, as `quotient plans apply` reads it. */
  text: string;
  format?: PlanFileFormat;
  source?: string;
  from: string;
  to: string;
  name?: string;
  /** The plan whose paid rows are "actual"; the draft's own key when absent. */
  comparePlanKey?: string;
  actor: AdminActor;
}

export interface ScenarioOptions {
  /** Reps read and evaluated per batch (per read transaction). */
  batchSize?: number;
  today?: () => string;
  /** How long a run's heartbeat holds it: an older one was interrupted, and resumeInterrupted takes it over. */
  leaseMs?: number;
  /** How long an ended scenario that is not kept stays before sweep deletes it. */
  retentionMs?: number;
  now?: () => Date;
}

const DEFAULT_BATCH = 25;
export const DEFAULT_SCENARIO_LEASE_MS = 60_000;
export const DEFAULT_SCENARIO_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Where a draft stands against the org's plans: the identity applying it would give, and the compared plan. */
interface DraftContext {
  plan: EnginePlanVersion;
  definition: PlanDefinition;
  comparePlanId: string | null;
  span: ScenarioSpan;
  org: OrgHierarchy;
  money: { default_currency: string; rates: Awaited<ReturnType<typeof orgs.loadConfig>>['rates'] };
  today: string;
  /** The plan's settled periods before the span, when the draft has a recoverable draw and the plan exists. */
  drawSettledBefore: string[];
}

export class PlanScenarios {
  readonly #db: Transactor;
  readonly #pool: Transactor;
  readonly #rollout: PlanRollout;
  readonly #batchSize: number;
  readonly #today: () => string;
  readonly #leaseMs: number;
  readonly #retentionMs: number;
  readonly #now: () => Date;
  readonly #runs = new Map<string, Promise<void>>();
  #closing = false;

  /** `db` writes the scenario's rows; `pool` reads the history (the deals pool, as recomputes do). */
  constructor(db: Transactor, pool: Transactor, rollout: PlanRollout, options: ScenarioOptions = {}) {
    this.#db = db;
    this.#pool = pool;
    this.#rollout = rollout;
    this.#batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH);
    this.#today = options.today ?? (() => new Date().toISOString().slice(0, 10));
    this.#leaseMs = options.leaseMs ?? DEFAULT_SCENARIO_LEASE_MS;
    this.#retentionMs = options.retentionMs ?? DEFAULT_SCENARIO_RETENTION_MS;
    this.#now = options.now ?? (() => new Date());
  }

  /** Validates the draft and the span, stores the scenario queued and hands it to the worker. */
  async start(input: StartScenarioInput): Promise<ScenarioRecord> {
    const definition = readDraft(input.text, input.format, input.source);
    requireSpan(input.from, input.to, this.#today());
    if (!(await orgs.find(this.#db.statements, input.orgId))) throw new Refusal('not_found', `no org ${input.orgId}`);
    if (periodsInSpan({ from: input.from, to: input.to }, definition.period).length === 0) {
      throw new Refusal(
        'invalid_body',
        `the span ${input.from} to ${input.to} holds no whole ${definition.period} period`,
      );
    }
    const comparePlanKey = input.comparePlanKey ?? definition.key;
    const leaseId = randomUUID();
    if (
      input.comparePlanKey !== undefined &&
      !(await plans.findByKey(this.#db.statements, input.orgId, comparePlanKey))
    ) {
      throw new Refusal('not_found', `the org has no plan ${comparePlanKey} to compare against`);
    }
    const record = await scenarios.create(this.#db.statements, {
      id: newId('scn'),
      orgId: input.orgId,
      name: input.name ?? null,
      planFile: input.text,
      planKey: definition.key,
      comparePlanKey,
      from: input.from,
      to: input.to,
      createdBy: input.actor.kind === 'admin' ? input.actor.adminId : null,
      leaseId,
    });
    this.#launch(record, leaseId);
    return record;
  }

  #launch(record: ScenarioRecord, leaseId: string): void {
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#run(record, leaseId))
      .finally(() => this.#runs.delete(record.id));
    this.#runs.set(record.id, run);
  }

  /**
   * Takes over the scenarios (of every org) left queued or running by a process that stopped or was killed: those
   * whose heartbeat is older than the lease. Each resumes where its last written batch ended. The ids taken over.
   */
  async resumeInterrupted(): Promise<string[]> {
    if (this.#closing) return [];
    const taken: string[] = [];
    for (const found of await scenarios.abandoned(this.#db.statements, this.#leaseMs, 20)) {
      if (this.#runs.has(found.id)) continue;
      const leaseId = randomUUID();
      const record = await scenarios.claim(this.#db.statements, found.org_id, found.id, leaseId, this.#leaseMs);
      if (!record) continue;
      this.#launch(record, leaseId);
      taken.push(record.id);
    }
    return taken;
  }

  /** Deletes the scenarios (of every org) that ended longer ago than the retention and are not kept. */
  async sweep(): Promise<number> {
    const before = new Date(this.#now().getTime() - this.#retentionMs);
    const found = await scenarios.unkeptEndedBefore(this.#db.statements, before, 500);
    const byOrg = new Map<string, string[]>();
    for (const { org_id, id } of found) byOrg.set(org_id, [...(byOrg.get(org_id) ?? []), id]);
    let deleted = 0;
    for (const [orgId, ids] of byOrg) deleted += await scenarios.deleteUnkept(this.#db.statements, orgId, ids);
    return deleted;
  }

  /** Stops this process's runs after their current batch and lets them go, for the next process to resume. */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all([...this.#runs.values()]);
  }

  /** Resolves when the scenario's run in this process has ended (at once when none is under way). */
  async settled(scenarioId: string): Promise<void> {
    await this.#runs.get(scenarioId);
  }

  async find(orgId: string, scenarioId: string): Promise<ScenarioRecord> {
    const found = await scenarios.find(this.#db.statements, orgId, scenarioId);
    if (!found) throw new Refusal('not_found', `no scenario ${scenarioId}`);
    return found;
  }

  async list(orgId: string): Promise<ScenarioRecord[]> {
    return scenarios.listOfOrg(this.#db.statements, orgId, 100);
  }

  /** A page of the scenario's reps by external id. */
  async reps(orgId: string, scenarioId: string, after: string | null, limit: number) {
    await this.find(orgId, scenarioId);
    const page = await scenarios.resultsAfter(this.#db.statements, orgId, scenarioId, after, limit + 1);
    return {
      reps: page.slice(0, limit),
      next: page.length > limit ? (page[limit - 1]?.user_external_id ?? null) : null,
    };
  }

  async cancel(orgId: string, scenarioId: string): Promise<ScenarioRecord> {
    await this.find(orgId, scenarioId);
    await scenarios.cancel(this.#db.statements, orgId, scenarioId);
    return this.find(orgId, scenarioId);
  }

  async keep(orgId: string, scenarioId: string, name: string | null, kept: boolean): Promise<ScenarioRecord> {
    await this.find(orgId, scenarioId);
    await scenarios.keep(this.#db.statements, orgId, scenarioId, name, kept);
    return this.find(orgId, scenarioId);
  }

  /** Two finished scenarios of the org side by side, per rep and period (B − A). */
  async compare(
    orgId: string,
    aId: string,
    bId: string,
  ): Promise<ScenarioComparison & { a: ScenarioRecord; b: ScenarioRecord }> {
    const a = await this.find(orgId, aId);
    const b = await this.find(orgId, bId);
    for (const scenario of [a, b]) {
      if (scenario.status !== 'done') {
        throw new Refusal(
          'invalid_state',
          `scenario ${scenario.id} is ${scenario.status}; only finished scenarios are compared`,
        );
      }
    }
    const [aReps, bReps] = await Promise.all([
      scenarios.allResults(this.#db.statements, orgId, a.id),
      scenarios.allResults(this.#db.statements, orgId, b.id),
    ]);
    return { a, b, ...compareScenarios(aReps, bReps) };
  }

  /** The trace of one of the scenario's lines, evaluated again for its rep exactly as the run evaluated it. */
  async lineTrace(orgId: string, scenarioId: string, lineKey: string): Promise<LineTarget> {
    const scenario = await this.find(orgId, scenarioId);
    const results = await scenarios.allResults(this.#db.statements, orgId, scenarioId);
    const owner = results.find((rep) => rep.lines.some((line) => line.line_key === lineKey));
    if (!owner) throw new Refusal('not_found', `scenario ${scenarioId} has no line ${lineKey}`);
    const context = await this.#context(scenario);
    const rep = { user_id: owner.user_id, external_id: owner.user_external_id };
    const target = await this.#pool.run(async (tx) => {
      const history = await this.#historyOf(tx, orgId, context, [rep]);
      const { targets } = scenarioTargets({ ...context, rep, ...(history.get(rep.user_id) as RepHistory) });
      return targets.find((each) => each.line.line_key === lineKey);
    });
    if (!target) throw new Refusal('not_found', `scenario ${scenarioId} has no line ${lineKey}`);
    return target;
  }

  /** Applies the scenario's plan file as `quotient plans apply` does: a new version, acceptance requests, audit. */
  async promote(orgId: string, scenarioId: string, actor: AdminActor): Promise<RolledOutApply> {
    const scenario = await this.find(orgId, scenarioId);
    if (scenario.status !== 'done') {
      throw new Refusal(
        'invalid_state',
        `scenario ${scenarioId} is ${scenario.status}; only a finished scenario is promoted`,
      );
    }
    const applied = await this.#rollout.apply(
      { orgId, text: scenario.plan_file, source: scenario.name ?? `scenario ${scenarioId}` },
      actor,
    );
    await scenarios.markPromoted(this.#db.statements, orgId, scenarioId, applied.version_id);
    return applied;
  }

  async #run(record: ScenarioRecord, leaseId: string): Promise<void> {
    const { org_id: orgId, id } = record;
    try {
      const context = await this.#context(record);
      const all = await scenarios.repsOfOrg(this.#pool.statements, orgId);
      // A resumed run: the reps whose results an earlier process wrote are done.
      const done = await scenarios.doneUserIds(this.#db.statements, orgId, id);
      const reps = all.filter((rep) => !done.has(rep.user_id));
      if (!(await scenarios.markRunning(this.#db.statements, orgId, id, all.length, leaseId))) return;
      for (let start = 0; start < reps.length; start += this.#batchSize) {
        if (this.#closing) {
          await scenarios.release(this.#db.statements, orgId, id, leaseId);
          return;
        }
        const batch = reps.slice(start, start + this.#batchSize);
        const results = await this.#pool.run(async (tx) => {
          const history = await this.#historyOf(tx, orgId, context, batch);
          return batch.map((rep): ScenarioRep => {
            const found = history.get(rep.user_id) as RepHistory;
            return scenarioOfRep({ ...context, rep, ...found });
          });
        });
        const running = await this.#db.run((tx) => scenarios.recordBatch(tx, orgId, id, results, leaseId));
        if (!running) return;
        // Live traffic's turn before the next batch.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const stored = await scenarios.allResults(this.#db.statements, orgId, id);
      const summary = summariseScenario(stored);
      await scenarios.finish(this.#db.statements, orgId, id, leaseId, { status: 'done', summary });
    } catch (error) {
      const failure = error instanceof Refusal ? error.message : 'the scenario could not be evaluated';
      await scenarios
        .finish(this.#db.statements, orgId, id, leaseId, { status: 'failed', failure })
        .catch(() => undefined);
    }
  }

  async #context(record: ScenarioRecord): Promise<DraftContext> {
    const orgId = record.org_id;
    const reader = this.#pool.statements;
    // The plans' repository is Prisma's: it reads on the admin transactor.
    const planReader = this.#db.statements;
    const definition = readDraft(record.plan_file, undefined, undefined);
    const existing = await plans.findByKey(planReader, orgId, definition.key);
    const chips = existing ? await plans.latestChips(planReader, orgId, existing.id) : new Map();
    const number = existing ? (await plans.lastVersionNumber(planReader, orgId, existing.id)) + 1 : 1;
    const plan = draftEnginePlan(definition, {
      plan_id: existing?.id ?? `plan_scenario_${record.id}`,
      version_id: `pv_scenario_${record.id}`,
      version_number: number,
      chips,
      newChipId: (key) => `chip_scenario_${key}`,
    });
    const compared =
      record.compare_plan_key === definition.key
        ? existing
        : await plans.findByKey(planReader, orgId, record.compare_plan_key);
    const config = await orgs.loadConfig(reader, orgId);
    const recoverable = readPlanDraw(plan).draw?.recoverable === true;
    const spanStarts = periodBounds(record.from_period).starts_on;
    const drawSettledBefore =
      recoverable && existing
        ? [...(await periodRecords.periodStatuses(reader, orgId))]
            .filter(
              ([periodId, status]) =>
                status !== 'open' &&
                periodKindOf(periodId) === plan.period &&
                periodBounds(periodId).starts_on < spanStarts,
            )
            .map(([periodId]) => periodId)
        : [];
    return {
      drawSettledBefore,
      plan,
      definition,
      comparePlanId: compared?.id ?? null,
      span: { from: record.from_period, to: record.to_period },
      org: await loadHierarchy(reader, orgId),
      money: { default_currency: config.defaultCurrency, rates: config.rates },
      today: this.#today(),
    };
  }

  /** Each rep's history as the engine reads it, in one read transaction. */
  async #historyOf(
    tx: Transaction,
    orgId: string,
    context: DraftContext,
    reps: readonly Rep[],
  ): Promise<Map<string, RepHistory>> {
    const userIds = reps.map((rep) => rep.user_id);
    const periods = periodsInSpan(context.span, context.plan.period);
    const [books, credits, paid, drawBalances] = await Promise.all([
      repQuotas.booksOfReps(tx, orgId, userIds),
      adjustments.attainmentCreditsOfReps(tx, orgId, userIds),
      context.comparePlanId === null
        ? Promise.resolve(new Map())
        : scenarios.paidRowsOfReps(tx, orgId, context.comparePlanId, userIds, periods),
      scenarios.drawBalancesOfReps(
        tx,
        orgId,
        context.plan.plan_id,
        {
          advance: drawChipId(context.plan.plan_id, DRAW_CHIP_KEY),
          recovery: drawChipId(context.plan.plan_id, DRAW_RECOVERY_CHIP_KEY),
        },
        userIds,
        context.drawSettledBefore,
      ),
    ]);
    const history = new Map<string, RepHistory>();
    for (const rep of reps) {
      const read = new Map<string, DealSnapshot>();
      for (const deal of await dealSnapshots.dealsOfRep(tx, orgId, rep.user_id)) read.set(deal.id, deal);
      const reports = repsReadBy(context.plan, rep.external_id, context.org.hierarchy);
      reports.delete(rep.external_id);
      for (const report of reports) {
        const reportRep = context.org.reps.get(report);
        if (!reportRep) continue;
        for (const deal of await dealSnapshots.dealsOfRep(tx, orgId, reportRep.user_id)) read.set(deal.id, deal);
      }
      history.set(rep.user_id, {
        deals: [...read.values()],
        hierarchy: context.org.hierarchy,
        money: context.money,
        quotas: repQuotas.quotasUnder(books.get(rep.user_id), context.plan.plan_id),
        credits: credits.get(rep.user_id) ?? [],
        actual: paid.get(rep.user_id) ?? [],
        drawOpeningCents: drawBalances.get(rep.user_id) ?? 0,
      });
    }
    return history;
  }
}

type RepHistory = Omit<Parameters<typeof scenarioOfRep>[0], 'plan' | 'rep' | 'span' | 'today'>;

function readDraft(text: string, format: PlanFileFormat | undefined, source: string | undefined): PlanDefinition {
  const read = readPlanFile(text, format === undefined ? {} : { format });
  if (read.ok) return read.plan;
  const count = read.problems.length;
  throw new Refusal(
    'invalid_plan_file',
    `${source ?? 'the plan file'} has ${count} problem${count === 1 ? '' : 's'}; no scenario was run`,
    { details: { problems: read.problems }, lines: read.problems.map(describeProblem) },
  );
}

/** A span of closed history: two months or quarters, the first not after the last, ending before today. */
function requireSpan(from: string, to: string, today: string): void {
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!isPeriodId(value))
      throw new Refusal('invalid_body', `${name}: ${value} is not a month (2025-10) or quarter (2025-Q4)`);
  }
  if (periodBounds(from).starts_on > periodBounds(to).starts_on) {
    throw new Refusal('invalid_body', `from (${from}) is after to (${to})`);
  }
  if (periodBounds(to).ends_on >= today) {
    throw new Refusal('invalid_body', `to: ${to} has not ended; a scenario runs over closed history`);
  }
}
