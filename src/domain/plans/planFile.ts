import { checkPlanForEngine } from '../earnings/chipRules.ts';
import type { EnginePlanVersion } from '../earnings/types.ts';
import { normalisePlan, type RawPlan } from './normalise.ts';
import { parseJson, parseYaml } from './parsing.ts';
import { dedupe, inDocumentOrder, type Segment } from './paths.ts';
import { ruleProblems } from './ruleProblems.ts';
import { schemaProblems } from './schemaProblems.ts';
import type { PlanDefinition, PlanFileProblem } from './types.ts';

// Plan files (docs/plans-and-earnings.md, Plans as code): YAML or JSON text → the published JSON Schema
// (schemas/plan-file.schema.json) → the rules a schema cannot express → the normalised plan. Every problem is
// reported with its path; a file with any problem yields no plan. Pure: no I/O.

export type PlanFileFormat = 'yaml' | 'json';

export type PlanFileResult = { ok: true; plan: PlanDefinition } | { ok: false; problems: PlanFileProblem[] };

/** Reads a plan file. YAML is the default and also reads JSON; `json` reads strict JSON. */
export function readPlanFile(text: string, options: { format?: PlanFileFormat } = {}): PlanFileResult {
  const parsed = options.format === 'json' ? parseJson(text) : parseYaml(text);
  if ('problems' in parsed) return { ok: false, problems: parsed.problems };
  return validatePlanDocument(parsed.document, parsed.locate);
}

/** Validates an already parsed plan document (the JSON value of a plan file). */
export function validatePlanDocument(
  document: unknown,
  locate?: (path: Segment[]) => number | undefined,
): PlanFileResult {
  const problems = [...schemaProblems(document), ...ruleProblems(document)];
  if (problems.length > 0) {
    return { ok: false, problems: inDocumentOrder(dedupe(problems), document, locate) };
  }
  const plan = normalisePlan(document as RawPlan);
  // The engine has the last word: a chip it could not evaluate is refused here, never stored to pay nothing.
  const unevaluable = checkPlanForEngine(engineViewOf(plan));
  if (unevaluable.length > 0) {
    return { ok: false, problems: inDocumentOrder(dedupe(unevaluable), document, locate) };
  }
  return { ok: true, plan };
}

/** The plan as the engine reads a stored version of it (ids do not matter to the checks). */
function engineViewOf(plan: PlanDefinition): EnginePlanVersion {
  return {
    plan_id: '',
    plan_key: plan.key,
    version_id: '',
    version_number: 0,
    period: plan.period,
    quota_cents: plan.quota_cents,
    ramp: plan.ramp ?? null,
    assignees: plan.assignees,
    chips: plan.chips.map((chip, index) => ({ ...chip, id: `chips[${index}]`, version: '1' })),
  };
}

/** Problems as lines for people: `chips[1].tiers[0].rate_bps (line 17): must be an integer`. */
export function describeProblem(problem: PlanFileProblem): string {
  const where = problem.path === '' ? '(file)' : problem.path;
  return `${where}${problem.line === undefined ? '' : ` (line ${problem.line})`}: ${problem.message}`;
}
