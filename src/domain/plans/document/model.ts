import { decimalsOf } from '../../currencies.ts';
import { formatMoney } from '../../earnings/money.ts';
import { type PeriodId, periodIdOf } from '../../periods.ts';
import { describeCondition, percentOfBps, tierPays } from '../describe.ts';
import type { CashRelease, ChipDefinition, PlanDefinition, Tier } from '../types.ts';
import { withPrecedenceSentences } from './precedenceSentences.ts';
import { customFieldWords, fieldWords, readableSentence, valueWords } from './readable.ts';
import { SAMPLE_REP, type WorkedExample, workedExamples } from './workedExamples.ts';

// A plan document (docs/plan-documents.md): what a plan version pays, in plain language, built from the normalised plan
// file the engine runs, with worked examples the engine computed. Pure data; rendered to HTML (`html.ts`) and PDF
// (`pdf.ts`). Every figure is formatted here once, so the two renderings cannot disagree.

/**
 * Where the rep's quota comes from. Without one, the document states the plan's `quota_cents` (the same for every
 * rep and period); a per-rep quota (a quota table, a ramp) passes its figure and a sentence saying where it came from.
 */
export interface QuotaSource {
  quota_cents: number | null;
  /** "quota 75,000.00: ramp month 3 of 4, 75% of 100,000.00". */
  source: string;
  /** A ramp's percent of full quota by month since the rep's start (25, 50, 75, 100); absent without a ramp. */
  ramp_pct?: number[];
  /** The rep's start date (YYYY-MM-DD) the ramp counts from; absent or null: none. */
  start_date?: string | null;
  /** A rep's document: the rep's quota of each period of the year from the version's period (`repQuota.ts`). */
  periods?: Array<{ period_id: PeriodId; quota_cents: number | null; explanation: string }>;
}

export interface PlanDocumentInput {
  plan: PlanDefinition;
  plan_id: string;
  version_id: string;
  version_number: number;
  /** When the version was applied: its examples take place in the period of this day. */
  applied_at: Date;
  /** The currency the plan pays in: its own, else the org's default. */
  currency: string;
  /** The stage a won deal has in the org. */
  won_stage: string;
  quota?: QuotaSource;
  /** The rep the document is for, when it is one rep's. */
  rep_external_id?: string;
  /** That rep's display name, heading the document in place of the external id. */
  rep_display_name?: string | null;
  /**
   * A document for no rep: how many reps have a quota of their own under the plan (a quota table), so that it does
   * not call the plan's quota the same for every rep when it is not.
   */
  reps_with_own_quota?: number;
  /** The org's own terms (clawback, leaver, governing), printed as the document's last section. */
  terms?: PlanDocumentTerms;
}

/** The org's terms of its plan documents (docs/plan-documents.md, "Your company's terms"); empty text: none. */
export interface PlanDocumentTerms {
  clawback: string;
  leaver: string;
  governing: string;
}

export const PLAN_DOCUMENT_TERM_TITLES: Record<keyof PlanDocumentTerms, string> = {
  clawback: 'Clawback',
  leaver: 'If you leave',
  governing: 'Governing terms',
};

export interface TermsSection {
  key: keyof PlanDocumentTerms;
  title: string;
  /** The org's text, paragraphs split at blank lines. */
  paragraphs: string[];
}

/** The terms of a document, in order, those with text only. */
export function termsSections(terms: PlanDocumentTerms | undefined): TermsSection[] {
  if (terms === undefined) return [];
  return (Object.keys(PLAN_DOCUMENT_TERM_TITLES) as Array<keyof PlanDocumentTerms>).flatMap((key) => {
    const paragraphs = terms[key]
      .split(/\n\s*\n/)
      .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
      .filter((paragraph) => paragraph !== '');
    return paragraphs.length === 0 ? [] : [{ key, title: PLAN_DOCUMENT_TERM_TITLES[key], paragraphs }];
  });
}

export interface TierRow {
  band: number;
  from: string;
  to: string;
  rate: string;
}

export interface ChipSection {
  key: string;
  name: string;
  kind: ChipDefinition['kind'];
  /** What the chip pays, in a sentence. */
  pays: string;
  /** When it applies, in words; null: every deal. */
  applies_when: string | null;
  tiers: TierRow[] | null;
  /** Tiered chips: how the bands combine. */
  tier_mode: string | null;
  /** Caps and floors, each in a sentence. */
  limits: string[];
}

export interface ExampleSection {
  key: string;
  title: string;
  description: string;
  period_id: PeriodId;
  deals: Array<{
    external_id: string;
    owner_external_id: string;
    close_date: string;
    stage: string;
    amount_cents: number;
    amount: string;
    custom: Record<string, unknown>;
    splits: Array<{ owner_external_id: string; share_bps: number }> | null;
    /** The custom fields, owner and split in words. */
    details: string;
  }>;
  /** Every line that pays something, as the engine computed it. */
  lines: Array<{
    /** Null for a period-level line (attainment bonus, draw). */
    deal_external_id: string | null;
    chip_key: string;
    chip: string;
    amount_cents: number;
    amount: string;
    explanation: string[];
  }>;
  silent_chips: string[];
  total_cents: number;
  total: string;
  /** Who reports to the sample rep in the example (overrides). */
  reports: string[];
}

export interface PlanDocument {
  title: string;
  subtitle: string;
  plan: { id: string; key: string; name: string; version_id: string; version_number: number; applied_at: string };
  currency: string;
  /** The opening paragraphs: what the plan pays, in plain language. */
  summary: string[];
  facts: Array<{ label: string; value: string }>;
  quota: {
    amount: string | null;
    source: string;
    ramp: string | null;
    /** The rep's start date; null when the document is not one rep's or the rep has none. */
    start_date: string | null;
    /** The rep's quota per period; empty when the document is not one rep's. */
    periods: Array<{ period_id: PeriodId; quota_cents: number | null; amount: string | null; source: string }>;
  };
  chips: ChipSection[];
  /** The plan's cap and draw, each in a sentence (empty without either). */
  plan_limits: string[];
  splits: string;
  overrides: string | null;
  /** Worked examples: sample deals and what the engine pays on them. */
  examples: ExampleSection[];
  /**
   * The org's terms (clawback, leaver, governing) as they stood when the document was made; part of what a rep
   * accepts. Absent from documents kept before the org could set terms.
   */
  terms?: TermsSection[];
}

function moneyIn(currency: string): (cents: number) => string {
  const decimals = decimalsOf(currency);
  return (cents) => formatMoney(BigInt(cents), decimals);
}

function boundOf(tier: Tier | undefined, quota: number | null, money: (cents: number) => string): string | null {
  if (tier === undefined) return null;
  if ('up_to_cents' in tier) return tier.up_to_cents === null ? null : money(tier.up_to_cents);
  if ('up_to_deals' in tier) return tier.up_to_deals === null ? null : `deal ${tier.up_to_deals}`;
  if (tier.up_to_pct === null) return null;
  return quota === null
    ? `${tier.up_to_pct}% of quota`
    : `${money(Math.round((quota * tier.up_to_pct) / 100))} (${tier.up_to_pct}% of quota)`;
}

function tierRows(tiers: readonly Tier[], quota: number | null, money: (cents: number) => string): TierRow[] {
  if (tiers.some((tier) => 'up_to_deals' in tier)) return dealCountRows(tiers, money);
  return tiers.map((tier, index) => ({
    band: index + 1,
    from: boundOf(tiers[index - 1], quota, money) ?? money(0),
    to: boundOf(tier, quota, money) ?? 'and above',
    rate: tierPays(tier, money),
  }));
}

/** Bands in won deals: a band runs from the deal after the previous band's last one to its own last deal. */
function dealCountRows(tiers: readonly Tier[], money: (cents: number) => string): TierRow[] {
  const lastDeal = (tier: Tier | undefined) => (tier && 'up_to_deals' in tier ? tier.up_to_deals : null);
  return tiers.map((tier, index) => ({
    band: index + 1,
    from: `deal ${(lastDeal(tiers[index - 1]) ?? 0) + 1}`,
    to: lastDeal(tier) === null ? 'and above' : `deal ${lastDeal(tier)}`,
    rate: tierPays(tier, money),
  }));
}

function baseName(base: string): string {
  return fieldWords(base);
}

/** Pay on cash in plain words (docs/plan-features.md, "Pay on cash"). */
export function cashSentence(cash: { held_pct: number; release: CashRelease }): string {
  const part =
    cash.held_pct === 100
      ? 'It is paid'
      : `${100 - cash.held_pct}% of it is paid when the deal is won; the other ${cash.held_pct}% is paid`;
  const when = {
    pro_rata: "as the customer pays, in proportion to what each payment pays of the deal's amount",
    first_payment: 'when the customer makes a first payment',
    full_payment: "when the customer has paid the deal's whole amount",
  }[cash.release];
  return `${part} ${when}, in the period the payment arrives. If the deal is lost or reopened, what was paid is taken back.`;
}

function chipSection(chip: ChipDefinition, quota: number | null, money: (cents: number) => string): ChipSection {
  const limits: string[] = [];
  if (chip.kind !== 'attainment_bonus') {
    if (chip.params.deal_cap_cents !== undefined) {
      limits.push(`At most ${money(chip.params.deal_cap_cents)} on any one deal.`);
    }
    if (chip.params.cap_cents !== undefined) {
      limits.push(`At most ${money(chip.params.cap_cents)} per period in all.`);
    }
    if (chip.params.floor_cents !== undefined) {
      limits.push(`At least ${money(chip.params.floor_cents)} in a period where it pays on a won deal.`);
    }
    if (chip.kind !== 'override' && chip.params.payable_on === 'cash' && chip.params.cash) {
      limits.push(cashSentence(chip.params.cash));
    }
  }
  const readsQuota =
    chip.kind === 'attainment_bonus' ||
    (chip.kind === 'tiered_commission' && chip.params.tiers.some((tier) => 'up_to_pct' in tier));
  if (quota === 0 && readsQuota) {
    limits.push(
      'Your quota is 0, read as 0% attainment: no band in percent of quota is passed, and only a threshold of 0% is reached.',
    );
  }
  const section = {
    key: chip.key,
    name: chip.name,
    kind: chip.kind,
    applies_when: chip.when === null ? null : describeCondition(chip.when, fieldWords),
    tiers: null,
    tier_mode: null,
    limits,
  };
  switch (chip.kind) {
    case 'commission':
      return { ...section, pays: `${percentOfBps(chip.params.rate_bps)} of ${baseName(chip.params.base)}.` };
    case 'flat':
      return { ...section, pays: `${money(chip.params.amount_cents)} per won deal.` };
    case 'attainment_bonus':
      return {
        ...section,
        pays: `A bonus of ${money(chip.params.amount_cents)} once your won deals in a period reach ${chip.params.threshold_pct}% of quota${quota === null ? '' : ` (${money(Math.round((quota * chip.params.threshold_pct) / 100))})`}, once per period.`,
      };
    case 'override':
      return {
        ...section,
        pays: `${percentOfBps(chip.params.rate_bps)} of the credited amounts of the deals won by ${chip.params.depth === 1 ? 'your direct reports' : `the people who report to you, down to ${chip.params.depth} levels`}, as the hierarchy stands on each deal's date.`,
      };
    case 'tiered_commission':
      if (chip.params.tiers.some((tier) => 'up_to_deals' in tier)) {
        return {
          ...section,
          pays: 'A rate by band of the number of deals you win in the period: each won deal is numbered in order of close date, then the time it was won, and a split deal counts as one deal for each person it credits.',
          tiers: tierRows(chip.params.tiers, quota, money),
          tier_mode:
            chip.params.mode === 'marginal'
              ? 'By deal number: each deal’s credited amount is paid at the rate of the band its own number falls in (the 11th deal at the rate of the band that holds deal 11).'
              : 'Whole count: once your count of won deals reaches a band, every deal of the period is paid at that band’s rate (earlier deals are topped up).',
        };
      }
      if (chip.params.tiers.some((tier) => 'amount_cents' in tier)) {
        const last = chip.params.tiers.at(-1);
        return {
          ...section,
          pays:
            chip.params.basis === 'per_deal'
              ? 'A table of amounts by band of each won deal’s own amount: every band pays its amount when the deal fills it, and the part of it the deal fills when it stops inside it (half the band, half its amount). Every deal climbs the bands from zero.'
              : 'A table of amounts by band of your running total of won deals in the period: every band pays its amount once the running total fills it, and each deal pays the part of the bands it fills (half a band, half its amount).',
          tiers: tierRows(chip.params.tiers, quota, money),
          tier_mode: `Proportional (interpolated) within each band; nothing more is paid above ${boundOf(last, quota, money) ?? 'the last band'}.`,
        };
      }
      if (chip.params.basis === 'per_deal') {
        return {
          ...section,
          pays: 'A rate by band of each won deal’s own amount: every deal climbs the bands from zero, whatever else you won in the period.',
          tiers: tierRows(chip.params.tiers, quota, money),
          tier_mode:
            chip.params.mode === 'marginal'
              ? 'Marginal, per deal: each part of the deal’s amount is paid at the rate of the band it falls in.'
              : 'Whole deal, per deal: the deal’s whole amount is paid at the rate of the band its amount reaches.',
        };
      }
      return {
        ...section,
        pays: `A rate by band of your running total of won deals in the period.`,
        tiers: tierRows(chip.params.tiers, quota, money),
        tier_mode:
          chip.params.mode === 'marginal'
            ? 'Marginal: each part of the running total is paid at the rate of the band it falls in.'
            : 'Retroactive: once the running total reaches a band, the whole total is paid at that band’s rate (earlier deals are topped up).',
      };
  }
}

function summaryOf(plan: PlanDefinition, period: string, money: (cents: number) => string): string[] {
  const kinds = plan.chips.map((chip) => chip.name);
  const paragraphs = [
    `${plan.name} pays you ${period === 'monthly' ? 'every month' : 'every quarter'} for the deals you win. It has ${plan.chips.length} part${plan.chips.length === 1 ? '' : 's'}, called chips: ${kinds.join(', ')}. Each chip below says what it pays and on which deals; the examples at the end show the figures the compensation engine computes for sample deals.`,
  ];
  if (plan.cap_cents !== undefined) {
    paragraphs.push(
      `In all, the plan pays at most ${money(plan.cap_cents)} per ${period === 'monthly' ? 'month' : 'quarter'}.`,
    );
  }
  return paragraphs;
}

/** The document of a plan version. */
export function planDocument(input: PlanDocumentInput): PlanDocument {
  const { plan } = input;
  const money = moneyIn(input.currency);
  const quota: QuotaSource = input.quota ?? planQuotaSource(plan, input.reps_with_own_quota ?? 0, money);
  const rampSentence =
    quota.ramp_pct !== undefined
      ? `Ramp from your start date${quota.start_date ? ` (${quota.start_date})` : ''}: ${rampSteps(quota.ramp_pct)} of full quota.`
      : input.quota === undefined && (plan.ramp?.length ?? 0) > 0
        ? `Ramp from each rep's start date: ${rampSteps(plan.ramp ?? [])} of full quota; a rep without a start date is not ramped.`
        : null;
  const repName =
    input.rep_external_id === undefined
      ? undefined
      : input.rep_display_name?.trim()
        ? input.rep_display_name.trim()
        : input.rep_external_id;
  const periodWord = plan.period === 'monthly' ? 'Monthly' : 'Quarterly';
  const appliedOn = input.applied_at.toISOString().slice(0, 10);
  const examples = workedExamples(plan, {
    quota_cents: quota.quota_cents,
    period_id: periodIdOf(appliedOn, plan.period),
    won_stage: input.won_stage,
  });
  const planLimits: string[] = [];
  if (plan.plan_year !== undefined) planLimits.push(planYearSentence(plan.plan_year.starts_month));
  if (plan.cap_cents !== undefined) {
    planLimits.push(`The plan pays at most ${money(plan.cap_cents)} per rep and period over all chips.`);
  }
  if (plan.draw?.paid === 'in_advance') {
    planLimits.push(
      plan.draw.recoverable
        ? `Draw of ${money(plan.draw.amount_cents)} per period, paid in advance: the whole draw is paid at the start of each period, and when the period is locked its earnings first repay it, then what earlier periods left unrepaid; what is left over is paid to you. What a period's earnings leave unrepaid is carried to later periods.`
        : `Draw of ${money(plan.draw.amount_cents)} per period, paid in advance: the whole draw is paid at the start of each period, and when the period is locked its earnings first repay it; what is left over is paid to you. What a period's earnings leave unrepaid is yours to keep.`,
    );
  } else if (plan.draw !== undefined) {
    planLimits.push(
      plan.draw.recoverable
        ? `Recoverable draw of ${money(plan.draw.amount_cents)} per period: when your earnings under the plan fall short of it, the plan advances the difference, and later periods' earnings above the draw pay the advance back. A period's draw is settled when the period is locked.`
        : `Guaranteed draw of ${money(plan.draw.amount_cents)} per period: when your earnings under the plan fall short of it, the plan pays the difference, which is yours to keep. A period's draw is settled when the period is locked.`,
    );
  }
  const assignees =
    plan.assignees === 'all'
      ? 'Every rep'
      : plan.assignees
          .map((entry) =>
            typeof entry === 'string'
              ? entry
              : `${entry.owner_external_id} (${entry.from ?? 'from the start'} to ${entry.until ?? 'no end'})`,
          )
          .join(', ');
  return {
    title: plan.name,
    subtitle: `Plan ${plan.key}, version ${input.version_number}, applied ${appliedOn}${repName === undefined ? '' : ` · for ${repName}`}`,
    plan: {
      id: input.plan_id,
      key: plan.key,
      name: plan.name,
      version_id: input.version_id,
      version_number: input.version_number,
      applied_at: input.applied_at.toISOString(),
    },
    currency: input.currency,
    summary: summaryOf(plan, plan.period, money),
    facts: [
      { label: 'Period', value: periodWord },
      { label: 'Currency', value: input.currency },
      ...(repName === undefined ? [] : [{ label: 'For', value: repName }]),
      {
        label: 'Quota',
        value:
          quota.quota_cents === null
            ? 'None'
            : input.quota === undefined && (rampSentence !== null || (input.reps_with_own_quota ?? 0) > 0)
              ? `${money(quota.quota_cents)} (the plan's; see below)`
              : money(quota.quota_cents),
      },
      { label: 'Applies to', value: assignees },
      { label: 'Version', value: `${input.version_number} (${input.version_id})` },
    ],
    quota: {
      amount: quota.quota_cents === null ? null : money(quota.quota_cents),
      source: quota.source,
      ramp: rampSentence,
      start_date: quota.start_date ?? null,
      periods: (quota.periods ?? []).map((period) => ({
        period_id: period.period_id,
        quota_cents: period.quota_cents,
        amount: period.quota_cents === null ? null : money(period.quota_cents),
        source: period.explanation,
      })),
    },
    chips: withPrecedenceSentences(
      plan.chips,
      plan.chips.map((chip) => chipSection(chip, quota.quota_cents, money)),
    ),
    plan_limits: planLimits,
    splits:
      'A deal split between reps credits each rep with their share of its amount (whole cents that add up to the deal). Each chip pays you on your share, and your share counts toward your tiers and quota.',
    overrides: plan.chips.some((chip) => chip.kind === 'override')
      ? 'Override chips pay managers on the deals of the people who report to them, on each deal only once, whatever the number of levels.'
      : null,
    examples: examples.map((example) => exampleSection(example, money)),
    ...(termsSections(input.terms).length > 0 ? { terms: termsSections(input.terms) } : {}),
  };
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The plan document's sentence for a plan year paid monthly (docs/plan-features.md, A plan year paid monthly). */
export function planYearSentence(startsMonth: number): string {
  return `Plan year from 1 ${MONTH_NAMES[startsMonth - 1] ?? 'January'}, paid monthly: your tiers count your won deals from the first day of the plan year against the annual quota (a quota changed during the year counts for the days it is in force). Each month pays what the year to date has earned less what the year's earlier months paid; a locked month's payment stands, and a later difference, up or down, is paid or taken back in the next open month.`;
}

function rampSteps(ramp: readonly number[]): string {
  return ramp.map((pct, index) => `month ${index + 1} ${pct}%`).join(', ');
}

/**
 * The quota of a document for no rep: the plan's, said to be the same for every rep only when no rep has one of their
 * own and the plan does not ramp.
 */
function planQuotaSource(
  plan: PlanDefinition,
  repsWithOwnQuota: number,
  money: (cents: number) => string,
): QuotaSource {
  const per = plan.period === 'monthly' ? 'month' : 'quarter';
  const ramps = (plan.ramp?.length ?? 0) > 0;
  const own =
    repsWithOwnQuota === 0
      ? ''
      : ` ${repsWithOwnQuota === 1 ? 'One rep has' : `${repsWithOwnQuota} reps have`} a quota of their own under this plan, which replaces the plan's; each rep's own document shows their quota period by period.`;
  if (plan.quota_cents === null) {
    return { quota_cents: null, source: `The plan has no quota.${own}` };
  }
  if (own === '' && !ramps) {
    return {
      quota_cents: plan.quota_cents,
      source: `The plan's quota, ${money(plan.quota_cents)} per ${per}, the same for every rep.`,
    };
  }
  return {
    quota_cents: plan.quota_cents,
    source: `The plan's quota is ${money(plan.quota_cents)} per ${per}.${own}${ramps ? " A new rep's quota ramps up from their start date, as below; each rep's own document shows their figures." : ''}`,
  };
}

function exampleSection(example: WorkedExample, money: (cents: number) => string): ExampleSection {
  return {
    key: example.key,
    title: example.title,
    description: example.description,
    period_id: example.period_id,
    deals: example.deals.map((deal) => {
      const details = [
        ...(deal.owner_external_id === SAMPLE_REP ? [] : [`won by ${deal.owner_external_id}`]),
        ...Object.entries(deal.custom).map(([name, value]) => `${customFieldWords(name)}: ${valueWords(value)}`),
        ...(deal.splits === null
          ? []
          : [
              `split ${deal.splits.map((split) => `${split.owner_external_id} ${(split.share_bps / 100).toFixed(0)}%`).join(', ')}`,
            ]),
      ];
      return {
        external_id: deal.external_id,
        owner_external_id: deal.owner_external_id,
        close_date: deal.close_date,
        stage: deal.stage,
        amount_cents: deal.amount_cents,
        amount: money(deal.amount_cents),
        custom: deal.custom,
        splits: deal.splits,
        details: details.length === 0 ? '—' : details.join('; '),
      };
    }),
    lines: example.lines.map((line) => ({
      deal_external_id: line.deal_external_id,
      chip_key: line.chip_key,
      chip: line.chip_name,
      amount_cents: line.amount_cents,
      amount: money(line.amount_cents),
      explanation: line.explanation.map(readableSentence),
    })),
    silent_chips: example.silent_chips,
    total_cents: example.total_cents,
    total: money(example.total_cents),
    reports: example.reports,
  };
}
