import { formatMinorUnits } from '../../../src/domain/currencies.ts';
import { Show, useLoad } from '../../../ui/components.tsx';
import { api, type Earning } from '../api.ts';
import { Money, NotFound, Section, StatusBadge } from '../components.tsx';
import { QuestionButton } from '../inquiryForm.tsx';
import { periodLabel } from '../periods.ts';
import { Link } from '../router.ts';
import { conditionText } from './plans.tsx';

// One line's full computation: the trace's sentences, then every step with its figures (bands, rates, caps,
// splits, conversions), read from GET /v1/earnings/{id}.

type Loaded = { earning: Earning } | { notFound: true };
type Step = Record<string, unknown> & { type: string };

const STEP_TITLES: Record<string, string> = {
  base: 'Base amount',
  condition: 'Condition',
  split: 'Split credit',
  conversion: 'Currency conversion',
  missing_exchange_rate: 'Missing exchange rate',
  rate: 'Rate',
  tier: 'Band',
  cumulative: 'Won so far in the period',
  threshold: 'Attainment threshold',
  flat: 'Flat amount',
  cap: 'Cap',
  floor: 'Floor',
  draw: 'Draw',
  draw_advance: 'Draw paid in advance',
  draw_settlement: 'Draw settled from earnings',
  plan_year: 'Plan year to date',
  override: 'Override',
  locked_total: 'Already approved',
  rounding: 'Rounding',
  zero_target: 'No quota',
};

function words(name: string): string {
  const text = name.replace(/_(cents|bps|pct)$/, '').replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function figure(name: string, value: unknown, currency: string): string {
  if (value === null || value === undefined) return '—';
  if (name.endsWith('_cents') && (typeof value === 'number' || typeof value === 'string')) {
    const cents = Number(value);
    return Number.isInteger(cents) ? formatMinorUnits(cents, currency, 'symbol') : `${value} (minor units)`;
  }
  if (name.endsWith('_bps') && typeof value === 'number') return `${(value / 100).toFixed(2)}%`;
  if (name.endsWith('_pct') && typeof value === 'number') return `${value}%`;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : `${value.length} item${value.length === 1 ? '' : 's'}`;
  if (name === 'expression' || name === 'when') return conditionText(value);
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(
        ([key, member]) =>
          `${key.replace(/^custom\./, '')}: ${typeof member === 'object' ? JSON.stringify(member) : String(member)}`,
      )
      .join(', ');
  }
  return String(value);
}

export function TracePage(props: { earningId: string }) {
  const [loaded, reload] = useLoad<Loaded>(async () => {
    const { data, error, response } = await api.GET('/v1/earnings/{id}', {
      params: { path: { id: props.earningId } },
    });
    if (response.status === 404) return { data: { notFound: true } };
    return { data: data ? { earning: data } : undefined, error };
  }, [props.earningId]);

  return (
    <Show loaded={loaded} retry={reload}>
      {(data) => {
        if ('notFound' in data) return <NotFound />;
        const { earning } = data;
        const trace = earning.trace as unknown as {
          plan: { key: string };
          chip: { name: string };
          steps: Step[];
          explanation: string[];
          deal: { external_id: string; currency?: string } | null;
        };
        const currency = earning.currency;
        // Amounts are in the deal's currency until a conversion step, and in the plan's from there on.
        let stepCurrency = trace.deal?.currency ?? currency;
        const steps = trace.steps.map((step) => {
          const shown = { step, currency: stepCurrency };
          if (step.type === 'conversion') stepCurrency = currency;
          return shown;
        });
        return (
          <div class="stack">
            <p class="breadcrumb">
              <Link href={`/reps/${earning.user_id}/periods/${earning.period_id}`}>
                ← Back to {periodLabel(earning.period_id)}
              </Link>
            </p>
            <header class="page-header">
              <div>
                <h1>
                  {trace.chip.name}
                  {trace.deal?.external_id ? ` on ${trace.deal.external_id}` : ''}
                </h1>
                <p class="muted">
                  Plan {trace.plan.key} · {periodLabel(earning.period_id)} ·{' '}
                  <StatusBadge status={earning.status as 'pending'} />
                </p>
              </div>
              <div>
                <p class="trace-amount">
                  <Money cents={earning.amount_cents} currency={currency} />
                </p>
                <QuestionButton
                  subject={{
                    kind: 'earning',
                    earning_id: earning.id,
                    label: `${trace.chip.name}${trace.deal?.external_id ? ` on ${trace.deal.external_id}` : ''}`,
                  }}
                  currency={currency}
                  text="Question this line"
                  defaultType="wrong_amount"
                />
              </div>
            </header>
            <Section title="How it is computed">
              <ol class="explanation-list">
                {trace.explanation.map((sentence) => (
                  <li key={sentence}>{sentence}</li>
                ))}
              </ol>
            </Section>
            <Section title="Every step">
              <ol class="trace-steps">
                {steps.map(({ step, currency: amountsIn }, index) => (
                  <li key={`${step.type}-${index}`} class="trace-step">
                    <h3>{STEP_TITLES[step.type] ?? words(step.type)}</h3>
                    <dl>
                      {Object.entries(step)
                        .filter(([name]) => name !== 'type')
                        .map(([name, value]) => (
                          <div key={name}>
                            <dt>{words(name)}</dt>
                            <dd>{figure(name, value, name === 'converted_cents' ? currency : amountsIn)}</dd>
                          </div>
                        ))}
                    </dl>
                  </li>
                ))}
              </ol>
            </Section>
          </div>
        );
      }}
    </Show>
  );
}
