import type { AdminServices } from '../../../composition.ts';
import type { ScenarioRecord } from '../../../repositories/scenarios.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

// Plan scenarios (docs/scenarios.md): started here, run by the process's scenario worker off the request path.

type ScenarioOperations =
  | 'startScenario'
  | 'listScenarios'
  | 'getScenario'
  | 'listScenarioReps'
  | 'getScenarioLine'
  | 'compareScenarios'
  | 'cancelScenario'
  | 'keepScenario'
  | 'promoteScenario';

export function scenarioHandlers(services: AdminServices): Pick<AdminHandlers, ScenarioOperations> {
  const scenarios = services.scenarios;
  return {
    startScenario: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body;
      const started = await scenarios.start({
        orgId: session.org_id,
        text: body.text,
        ...(body.format === undefined ? {} : { format: body.format }),
        source: 'the plan file',
        from: body.from,
        to: body.to,
        ...(body.name === undefined ? {} : { name: body.name }),
        ...(body.compare_plan_key === undefined ? {} : { comparePlanKey: body.compare_plan_key }),
        actor,
      });
      res.status(202).json(toWireScenario(started));
    },

    listScenarios: async (_req, res) => {
      const { session } = adminContext(res);
      res.status(200).json({ scenarios: (await scenarios.list(session.org_id)).map(toWireScenario) });
    },

    getScenario: async (req, res) => {
      const { session } = adminContext(res);
      res.status(200).json(toWireScenario(await scenarios.find(session.org_id, req.params.id)));
    },

    listScenarioReps: async (req, res) => {
      const { session } = adminContext(res);
      const page = await scenarios.reps(session.org_id, req.params.id, req.query.cursor ?? null, req.query.limit ?? 50);
      res.status(200).json({
        next_cursor: page.next,
        reps: page.reps.map(({ user_id: _user, problems: _problems, ...rep }) => rep),
      });
    },

    getScenarioLine: async (req, res) => {
      const { session } = adminContext(res);
      const target = await scenarios.lineTrace(session.org_id, req.params.id, req.params.line);
      res.status(200).json({
        line_key: target.line.line_key,
        period_id: target.period_id,
        earned_cents: target.earned_cents,
        trace: target.trace as unknown as Record<string, unknown>,
      });
    },

    compareScenarios: async (req, res) => {
      const { session } = adminContext(res);
      const { a, b, ...comparison } = await scenarios.compare(session.org_id, req.params.id, req.params.other);
      const side = (scenario: ScenarioRecord) => ({
        id: scenario.id,
        name: scenario.name,
        plan_key: scenario.plan_key,
        from: scenario.from_period,
        to: scenario.to_period,
      });
      res.status(200).json({ a: side(a), b: side(b), ...comparison });
    },

    cancelScenario: async (req, res) => {
      const { session } = adminContext(res);
      res.status(200).json(toWireScenario(await scenarios.cancel(session.org_id, req.params.id)));
    },

    keepScenario: async (req, res) => {
      const { session } = adminContext(res);
      const kept = await scenarios.keep(session.org_id, req.params.id, req.body.name ?? null, req.body.kept);
      res.status(200).json(toWireScenario(kept));
    },

    promoteScenario: async (req, res) => {
      const { session, actor } = adminContext(res);
      const applied = await scenarios.promote(session.org_id, req.params.id, actor);
      const recompute = applied.recompute;
      res.status(200).json({
        plan_id: applied.plan_id,
        version_id: applied.version_id,
        version: applied.version,
        changed: applied.changed,
        reactivated: applied.reactivated,
        chips: applied.chips,
        removed_chips: applied.removed_chips,
        rows_recomputed: recompute ? recompute.rows_written + recompute.rows_superseded + recompute.rows_reversed : 0,
      });
    },
  };
}

function toWireScenario(scenario: ScenarioRecord) {
  return {
    id: scenario.id,
    name: scenario.name,
    kept: scenario.kept,
    plan_key: scenario.plan_key,
    compare_plan_key: scenario.compare_plan_key,
    from: scenario.from_period,
    to: scenario.to_period,
    status: scenario.status,
    progress: { reps_done: scenario.reps_done, reps_total: scenario.reps_total },
    summary: scenario.summary,
    failure: scenario.failure,
    promoted_version_id: scenario.promoted_version_id,
    created_at: scenario.created_at.toISOString(),
    finished_at: scenario.finished_at?.toISOString() ?? null,
  };
}
