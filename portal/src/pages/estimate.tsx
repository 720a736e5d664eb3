import { useId, useState } from 'preact/hooks';
import { formatMinorUnits } from '../../../src/domain/currencies.ts';
import { Field, Show, useLoad } from '../../../ui/components.tsx';
import { describeError } from '../../../ui/errors.ts';
import { Empty, Notice } from '../../../ui/states.tsx';
import { api, type Deal, type Estimate, type Statement } from '../api.ts';
import { AttainmentBar, Money, Section } from '../components.tsx';
import { type PeriodKind, periodLabel, periodOfDate, today } from '../periods.ts';

// What-if: choose one of your open deals and a close date, see the lines closing it won would add and the
// attainment it would reach. POST /v1/estimates runs the real engine in a transaction it rolls back: nothing is
// written.

type Result = { estimate: Estimate; statement: Statement | null; deal: Deal; periodId: string };

export function EstimatePage(props: { userId: string; externalId: string; kind: PeriodKind }) {
  const [deals, reload] = useLoad(
    () =>
      api.GET('/v1/deals', {
        params: { query: { status: 'open', owner_external_id: props.externalId, limit: 200 } },
      }),
    [props.externalId],
  );
  const [dealId, setDealId] = useState('');
  const [closeDate, setCloseDate] = useState(today());
  const [result, setResult] = useState<Result | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [running, setRunning] = useState(false);
  const dealField = useId();
  const dateField = useId();

  const run = async (openDeals: readonly Deal[]) => {
    const deal = openDeals.find((candidate) => candidate.id === dealId);
    if (!deal) {
      setProblem('Choose a deal.');
      return;
    }
    setRunning(true);
    setProblem(undefined);
    try {
      const { data, error } = await api.POST('/v1/estimates', { body: { deal_id: deal.id, close_date: closeDate } });
      if (!data) {
        setProblem(describeError(error));
        return;
      }
      const periodId = periodOfDate(closeDate, props.kind);
      const statement = await api.GET('/v1/users/{id}/statements/{period_id}', {
        params: { path: { id: props.userId, period_id: periodId } },
      });
      setResult({ estimate: data, statement: (statement.data as Statement | undefined) ?? null, deal, periodId });
    } catch {
      setProblem('The server could not be reached. Check your connection and retry.');
    } finally {
      setRunning(false);
    }
  };

  return (
    <div class="stack">
      <header class="page-header">
        <div>
          <h1>What if a deal closes?</h1>
          <p class="muted">Choose an open deal and a close date to see what it would pay. Nothing is saved.</p>
        </div>
      </header>
      <Show loaded={deals} retry={reload}>
        {(page) =>
          page.deals.length === 0 ? (
            <Empty title="You have no open deals">Deals your CRM has open for you show here.</Empty>
          ) : (
            <form
              class="card estimate-form"
              onSubmit={(event) => {
                event.preventDefault();
                void run(page.deals);
              }}
            >
              <Field label="Deal" id={dealField}>
                <select id={dealField} value={dealId} onChange={(event) => setDealId(event.currentTarget.value)}>
                  <option value="">Choose a deal…</option>
                  {page.deals.map((deal) => (
                    <option key={deal.id} value={deal.id}>
                      {deal.external_id}
                      {typeof deal.state.amount_cents === 'number'
                        ? ` · ${formatMinorUnits(deal.state.amount_cents, deal.currency ?? 'USD', 'symbol')}`
                        : ''}
                      {deal.state.stage ? ` · ${deal.state.stage}` : ''}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label="Close date" id={dateField}>
                <input
                  id={dateField}
                  type="date"
                  required
                  value={closeDate}
                  onInput={(event) => setCloseDate(event.currentTarget.value)}
                />
              </Field>
              <div class="form-actions">
                <button type="submit" class="button button-primary" disabled={running}>
                  {running ? 'Estimating…' : 'Estimate'}
                </button>
              </div>
            </form>
          )
        }
      </Show>
      {problem ? <Notice kind="error">{problem}</Notice> : null}
      {result ? <EstimateResult result={result} externalId={props.externalId} /> : null}
    </div>
  );
}

function EstimateResult(props: { result: Result; externalId: string }) {
  const { estimate, statement, deal, periodId } = props.result;
  const mine = estimate.lines.filter((line) => line.user_external_id === props.externalId);
  const plan = statement?.plans.find((candidate) => candidate.attainment.quota_cents !== null);
  const amount = typeof deal.state.amount_cents === 'number' ? deal.state.amount_cents : 0;
  // The deal counts towards the plan's attainment in its period when it is in the plan's currency.
  const counts = plan && (deal.currency ?? plan.currency) === plan.currency;
  const after = plan?.attainment.quota_cents
    ? ((plan.attainment.won_cents + (counts ? amount : 0)) / plan.attainment.quota_cents) * 100
    : null;
  return (
    <Section title={`If ${deal.external_id} closes won in ${periodLabel(periodId)}`}>
      <div aria-live="polite">
        {estimate.by_currency.length === 0 ? (
          <p>Closing it would not change what you earn.</p>
        ) : (
          estimate.by_currency.map((entry) => (
            <p key={entry.currency} class="estimate-difference">
              You would earn <strong>{formatMinorUnits(entry.difference_cents, entry.currency, 'symbol')}</strong> more
              ({formatMinorUnits(entry.earned_now_cents, entry.currency, 'symbol')} now,{' '}
              {formatMinorUnits(entry.earned_after_cents, entry.currency, 'symbol')} after).
            </p>
          ))
        )}
      </div>
      {plan && after !== null ? (
        <>
          <AttainmentBar percent={plan.attainment.percent} label={`Attainment now (${plan.plan_name})`} />
          <AttainmentBar percent={Math.round(after * 100) / 100} label={`Attainment after (${plan.plan_name})`} />
        </>
      ) : null}
      {mine.length === 0 ? null : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Lines the deal would change</caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col" class="numeric">
                  Now
                </th>
                <th scope="col" class="numeric">
                  After
                </th>
                <th scope="col" class="numeric">
                  Difference
                </th>
              </tr>
            </thead>
            <tbody>
              {mine.map((line) => {
                const trace = line.rows[0]?.trace as { chip: { name: string }; explanation: string[] } | undefined;
                return (
                  <tr key={`${line.rule_chip_id}-${line.deal_id ?? 'period'}`}>
                    <td class="wrap">
                      {trace?.chip.name ?? 'Line'}
                      {trace ? (
                        <ul class="muted small estimate-explanation">
                          {trace.explanation.map((sentence) => (
                            <li key={sentence}>{sentence}</li>
                          ))}
                        </ul>
                      ) : null}
                    </td>
                    <td class="numeric">
                      <Money cents={line.earned_now_cents} currency={line.currency} />
                    </td>
                    <td class="numeric">
                      <Money cents={line.earned_after_cents} currency={line.currency} />
                    </td>
                    <td class="numeric strong">
                      <Money cents={line.difference_cents} currency={line.currency} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
