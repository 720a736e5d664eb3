import { useState } from 'preact/hooks';
import { formatMinorUnits } from '../../../src/domain/currencies.ts';
import { Show, useLoad } from '../../../ui/components.tsx';
import { Empty, Notice } from '../../../ui/states.tsx';
import { api, type Plan, type Schemas } from '../api.ts';
import { Section } from '../components.tsx';
import { downloadPlanDocument } from '../downloads.ts';

// The plans the rep is on, in plain language: each chip of the current version as a sentence, read from
// GET /v1/plans/{id}?include=chips.

type Chip = Schemas['RuleChip'];
type PlanWithChips = Plan & { chips?: Chip[] };

/** Basis points as a percentage, from the number's decimal digits (133.33 → 1.3333%), never through a division. */
function percent(bps: unknown): string {
  if (typeof bps !== 'number' || !Number.isFinite(bps)) return '?';
  const [whole = '0', fraction = ''] = String(bps).split('.');
  const digits = `${whole.padStart(3, '0')}${fraction.padEnd(2, '0')}`;
  const cut = digits.length - 4;
  const fourths = digits.slice(cut).replace(/0{1,2}$/, '');
  const decimals = fourths === '00' ? '' : fourths;
  return `${Number(digits.slice(0, cut))}${decimals === '' ? '' : `.${decimals}`}%`;
}

function amount(cents: unknown, currency: string): string {
  return typeof cents === 'number' ? formatMinorUnits(cents, currency, 'symbol') : '?';
}

const OPERATORS: Record<string, string> = {
  eq: 'is',
  ne: 'is not',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  in: 'is one of',
  nin: 'is none of',
  exists: 'is set',
};

/** A chip's condition as words: `region is EMEA and amount is at least 10,000`. */
export function conditionText(condition: unknown): string {
  if (!condition || typeof condition !== 'object') return '';
  const shape = condition as Record<string, unknown>;
  if (Array.isArray(shape.all)) return shape.all.map(conditionText).join(' and ');
  if (Array.isArray(shape.any)) return `either ${shape.any.map(conditionText).join(' or ')}`;
  if (shape.not) return `not (${conditionText(shape.not)})`;
  const field = String(shape.field ?? '').replace(/^custom\./, '');
  const operator = OPERATORS[String(shape.op)] ?? String(shape.op ?? '');
  const value = Array.isArray(shape.value)
    ? shape.value.join(', ')
    : shape.value === undefined
      ? ''
      : String(shape.value);
  return `${field.replace(/_/g, ' ')} ${operator}${value === '' ? '' : ` ${value}`}`;
}

/** The deal field a commission is a rate of: its amount, or a custom field. */
function baseName(base: unknown): string {
  if (typeof base !== 'string' || base === 'amount_cents') return 'amount';
  return base
    .replace(/^custom\./, '')
    .replace(/_cents$/, '')
    .replace(/_/g, ' ');
}

/** What a chip pays, in one sentence. */
export function chipSentence(chip: Chip, currency: string): string {
  const params = chip.params as Record<string, unknown>;
  const when = chip.when ? ` when ${conditionText(chip.when)}` : '';
  const caps = [
    params.deal_cap_cents == null ? '' : ` at most ${amount(params.deal_cap_cents, currency)} per deal`,
    params.cap_cents == null ? '' : ` at most ${amount(params.cap_cents, currency)} per period`,
  ]
    .filter(Boolean)
    .join(',');
  const capped = caps ? `,${caps}` : '';
  switch (chip.kind) {
    case 'commission':
      return `${percent(params.rate_bps)} of each won deal's ${baseName(params.base)}${when}${capped}.`;
    case 'tiered_commission': {
      const tiers = Array.isArray(params.tiers) ? (params.tiers as Array<Record<string, unknown>>) : [];
      const bands = tiers
        .map((tier) => {
          const rate =
            tier.amount_cents == null
              ? percent(tier.rate_bps)
              : `${amount(tier.amount_cents, currency)} for filling the band (in proportion to the part filled)`;
          if (tier.up_to_cents != null) return `${rate} up to ${amount(tier.up_to_cents, currency)}`;
          if (tier.up_to_pct != null) return `${rate} up to ${tier.up_to_pct}% of quota`;
          return `${rate} beyond`;
        })
        .join('; ');
      const mode =
        params.mode === 'retroactive'
          ? 'the whole deal earns the rate of the highest band you reach'
          : 'each part earns its band’s rate';
      return `Rates by band of what you win in the period (${mode}): ${bands}${when ? `;${when}` : ''}${capped}.`;
    }
    case 'flat':
      return `${amount(params.amount_cents, currency)} for each won deal${when}${capped}.`;
    case 'attainment_bonus':
      return `A bonus of ${amount(params.amount_cents, currency)} when what you win in the period reaches ${params.threshold_pct}% of quota.`;
    case 'override':
      return `${percent(params.rate_bps)} of what your reports win, down to ${params.depth ?? 1} level${params.depth === 1 ? '' : 's'} of your team${capped}.`;
    default:
      return `${chip.name}.`;
  }
}

export function PlansPage() {
  const [downloadError, setDownloadError] = useState<string | undefined>();
  const download = async (planId: string) => {
    setDownloadError(undefined);
    try {
      await downloadPlanDocument(planId);
    } catch (error) {
      setDownloadError(error instanceof Error ? error.message : 'The download failed.');
    }
  };
  const [loaded, reload] = useLoad(async () => {
    const list = await api.GET('/v1/plans');
    if (!list.data) return { error: list.error };
    const plans = await Promise.all(
      list.data.plans.map((plan) =>
        api.GET('/v1/plans/{id}', { params: { path: { id: plan.id }, query: { include: 'chips' } } }),
      ),
    );
    const failed = plans.find((answer) => !answer.data);
    if (failed) return { error: failed.error };
    return { data: plans.map((answer) => answer.data as PlanWithChips) };
  }, []);

  return (
    <div class="stack">
      <header class="page-header">
        <div>
          <h1>My plans</h1>
          <p class="muted">
            The plans that pay you, and what each part of them pays. Each plan's document has tier tables and worked
            examples.
          </p>
        </div>
      </header>
      {downloadError ? <Notice kind="error">{downloadError}</Notice> : null}
      <Show loaded={loaded} retry={reload}>
        {(plans) =>
          plans.length === 0 ? (
            <Empty title="You are on no plan yet">Your administrator assigns plans.</Empty>
          ) : (
            plans.map((plan) => {
              const currency = plan.currency ?? 'USD';
              return (
                <Section
                  key={plan.id}
                  title={plan.name}
                  actions={
                    <button type="button" class="button" onClick={() => download(plan.id)}>
                      Plan document (PDF)<span class="visually-hidden"> of {plan.name}</span>
                    </button>
                  }
                >
                  <dl class="facts">
                    <div>
                      <dt>Period</dt>
                      <dd>{plan.period === 'monthly' ? 'Monthly' : 'Quarterly'}</dd>
                    </div>
                    <div>
                      <dt>Quota</dt>
                      <dd>{plan.quota_cents === null ? 'None' : amount(plan.quota_cents, currency)}</dd>
                    </div>
                    <div>
                      <dt>Paid in</dt>
                      <dd>{currency}</dd>
                    </div>
                    {plan.cap_cents === null ? null : (
                      <div>
                        <dt>Cap per period</dt>
                        <dd>{amount(plan.cap_cents, currency)}</dd>
                      </div>
                    )}
                    {plan.draw ? (
                      <div>
                        <dt>Draw</dt>
                        <dd>
                          {amount(plan.draw.amount_cents, currency)} per period
                          {plan.draw.recoverable ? ', recovered from later earnings' : ''}
                        </dd>
                      </div>
                    ) : null}
                  </dl>
                  <h3>What it pays</h3>
                  <ul class="chip-sentences">
                    {(plan.chips ?? []).map((chip) => (
                      <li key={chip.id}>
                        <strong>{chip.name}:</strong> {chipSentence(chip, currency)}
                      </li>
                    ))}
                  </ul>
                </Section>
              );
            })
          )
        }
      </Show>
    </div>
  );
}
