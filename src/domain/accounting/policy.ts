import schema from '../../../schemas/accounting-policy.schema.json' with { type: 'json' };
import { isKnownCurrency } from '../currencies.ts';
import { canonicalDigest } from '../json.ts';
import { parseJson, parseYaml } from '../plans/parsing.ts';
import { dedupe, inDocumentOrder, type Segment } from '../plans/paths.ts';
import { compileSchema, validatorProblems } from '../plans/schemaProblems.ts';
import type { PlanFileProblem } from '../plans/types.ts';

// Accounting policy files (docs/accounting.md, The policy file): YAML or JSON text → the published JSON Schema
// (schemas/accounting-policy.schema.json) → the rules a schema cannot express → the normalised policy. Every
// problem is reported with its path, as a plan file's are; a file with any problem yields no policy. Pure: no I/O.

export type Book = 'asc_340_40' | 'ifrs_15';
export type Proration = 'monthly' | 'daily';

export interface GlAccounts {
  deferred_commission_asset: string;
  commission_payable: string;
  amortisation_expense: string;
  commission_expense: string;
  impairment_expense: string;
}

export interface CapitalisedPlan {
  plan: string;
  /** The chip keys capitalised; `all` for every chip of the plan. */
  chips: 'all' | string[];
}

export interface AccountingPolicy {
  book: Book;
  currency: string;
  capitalise: CapitalisedPlan[];
  benefit_period: { field: string | null; default_months: number; anticipated_renewal_months: number };
  /** Benefit periods of this many months or fewer are expensed when incurred; null when not elected. */
  practical_expedient_months: number | null;
  amortisation: { method: 'straight_line'; proration: Proration };
  impairment: { churn_field: string | null };
  gl_accounts: GlAccounts;
}

export type PolicyProblem = PlanFileProblem;

export type PolicyFileResult = { ok: true; policy: AccountingPolicy } | { ok: false; problems: PolicyProblem[] };

const MESSAGES = new Map<unknown, Record<string, string>>([
  [schema.$defs.slug, { pattern: 'must be a key: lowercase letters and digits, words separated by - or _' }],
  [schema.$defs.account, { pattern: 'must not be blank' }],
  [schema.properties.benefit_period.properties.field, { pattern: 'must be custom.<field>' }],
  [schema.properties.impairment.properties.churn_field, { pattern: 'must be custom.<field>' }],
]);

let compiled: ReturnType<typeof compileSchema> | undefined;

/** Reads a policy file. YAML is the default and also reads JSON; `json` reads strict JSON. */
export function readPolicyFile(text: string, options: { format?: 'yaml' | 'json' } = {}): PolicyFileResult {
  const parsed = options.format === 'json' ? parseJson(text) : parseYaml(text);
  if ('problems' in parsed) return { ok: false, problems: parsed.problems };
  return validatePolicyDocument(parsed.document, parsed.locate);
}

export function validatePolicyDocument(
  document: unknown,
  locate?: (path: Segment[]) => number | undefined,
): PolicyFileResult {
  compiled ??= compileSchema(schema);
  const problems = validatorProblems(compiled, document, MESSAGES);
  if (problems.length === 0) problems.push(...ruleProblems(document as RawPolicy));
  if (problems.length > 0) return { ok: false, problems: inDocumentOrder(dedupe(problems), document, locate) };
  return { ok: true, policy: normalisePolicy(document as RawPolicy) };
}

interface RawPolicy {
  book: Book;
  currency: string;
  capitalise: Array<{ plan: string; chips?: string[] }>;
  benefit_period: { field?: string; default_months: number; anticipated_renewal_months?: number };
  practical_expedient_months?: number | null;
  amortisation?: { method?: 'straight_line'; proration?: Proration };
  impairment?: { churn_field?: string };
  gl_accounts: Omit<GlAccounts, 'impairment_expense'> & { impairment_expense?: string };
}

/** The rules a schema cannot express: a known currency, each plan once, each GL account for one role. */
function ruleProblems(raw: RawPolicy): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  if (!isKnownCurrency(raw.currency)) {
    problems.push({ path: 'currency', message: `${raw.currency} is not a known ISO 4217 currency` });
  }
  const seen = new Map<string, number>();
  raw.capitalise.forEach((entry, index) => {
    const first = seen.get(entry.plan);
    if (first === undefined) seen.set(entry.plan, index);
    else problems.push({ path: `capitalise[${index}].plan`, message: `repeats capitalise[${first}].plan` });
  });
  const roles = new Map<string, string>();
  for (const [role, account] of Object.entries(raw.gl_accounts)) {
    const other = roles.get(account);
    // Impairments may share the amortisation expense account: both are the asset's expense.
    const shared =
      new Set([role, other]).has('impairment_expense') && new Set([role, other]).has('amortisation_expense');
    if (other !== undefined && !shared) {
      problems.push({
        path: `gl_accounts.${role}`,
        message: `is also gl_accounts.${other}; each role needs its own account`,
      });
    } else roles.set(account, role);
  }
  return problems;
}

function normalisePolicy(raw: RawPolicy): AccountingPolicy {
  return {
    book: raw.book,
    currency: raw.currency,
    capitalise: raw.capitalise
      .map((entry) => ({ plan: entry.plan, chips: entry.chips ? [...entry.chips].sort() : ('all' as const) }))
      .sort((a, b) => (a.plan < b.plan ? -1 : a.plan > b.plan ? 1 : 0)),
    benefit_period: {
      field: raw.benefit_period.field ?? null,
      default_months: raw.benefit_period.default_months,
      anticipated_renewal_months: raw.benefit_period.anticipated_renewal_months ?? 0,
    },
    practical_expedient_months: raw.practical_expedient_months === undefined ? 12 : raw.practical_expedient_months,
    amortisation: { method: 'straight_line', proration: raw.amortisation?.proration ?? 'monthly' },
    impairment: { churn_field: raw.impairment?.churn_field ?? null },
    gl_accounts: {
      deferred_commission_asset: raw.gl_accounts.deferred_commission_asset,
      commission_payable: raw.gl_accounts.commission_payable,
      amortisation_expense: raw.gl_accounts.amortisation_expense,
      commission_expense: raw.gl_accounts.commission_expense,
      impairment_expense: raw.gl_accounts.impairment_expense ?? raw.gl_accounts.amortisation_expense,
    },
  };
}

/** SHA-256 of the canonical JSON of the normalised policy: the same digest means the same policy (a no-op apply). */
export function policyDigest(policy: AccountingPolicy): string {
  return canonicalDigest(policy);
}

/** Whether the policy capitalises earnings of this plan's chip. */
export function capitalises(policy: AccountingPolicy, planKey: string, chipKey: string): boolean {
  const entry = policy.capitalise.find((candidate) => candidate.plan === planKey);
  return entry !== undefined && (entry.chips === 'all' || entry.chips.includes(chipKey));
}

/**
 * The contract's months from the deal's custom fields: the policy's field when it holds a positive whole number,
 * else the default. The benefit period adds the anticipated renewal months to it.
 */
export function contractMonthsOf(policy: AccountingPolicy, custom: Readonly<Record<string, unknown>>): number {
  const field = policy.benefit_period.field;
  const value = field === null ? undefined : custom[field.slice('custom.'.length)];
  const months = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof months === 'number' && Number.isInteger(months) && months > 0 && months <= 600
    ? months
    : policy.benefit_period.default_months;
}
