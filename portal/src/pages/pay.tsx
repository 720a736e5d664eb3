import { useCallback, useState } from 'preact/hooks';
import { Show, useLoad } from '../../../ui/components.tsx';
import { Empty, Notice } from '../../../ui/states.tsx';
import { api, type Schemas, type Statement, type StatementPlan } from '../api.ts';
import { ApprovalPanel } from '../approval.tsx';
import { AttainmentBar, Money, NotFound, Section, StatusBadge } from '../components.tsx';
import { downloadStatement } from '../downloads.ts';
import { QuestionButton } from '../inquiryForm.tsx';
import { type EarningsChange, useEarningsStream } from '../live.ts';
import { nextPeriod, periodLabel, previousPeriod } from '../periods.ts';
import { Link } from '../router.ts';
import { AcceptanceBanner } from './acceptance.tsx';

// "My pay" (or a report's, for a manager): one period's statement. Earned is what the period's rows earn
// (pending, approved, paid), projected what open deals would add, payable what the period pays; each line
// opens its full trace. New rows arrive live (GET /v1/events/stream) and the statement is read again.

type Loaded = { statement: Statement } | { notFound: true };

export function PayPage(props: { userId: string; periodId: string; isMe: boolean; meId: string }) {
  const { userId, periodId } = props;
  const [loaded, reload] = useLoad<Loaded>(async () => {
    const { data, error, response } = await api.GET('/v1/users/{id}/statements/{period_id}', {
      params: { path: { id: userId, period_id: periodId } },
    });
    if (response.status === 404) return { data: { notFound: true } };
    return { data: data === undefined ? undefined : { statement: data as Statement }, error };
  }, [userId, periodId]);
  const [news, setNews] = useState<string | undefined>();
  const [live, setLive] = useState(false);
  const [downloadError, setDownloadError] = useState<string | undefined>();

  const onChange = useCallback(
    (change: EarningsChange) => {
      if (change.user_id !== userId || change.period_id !== periodId) return;
      setNews(`New earnings just arrived${change.deal_id ? ' for a deal' : ''}; the figures below are up to date.`);
      void reload();
    },
    [userId, periodId, reload],
  );
  useEarningsStream(onChange, () => setLive(true));

  const download = async (format: 'csv' | 'pdf') => {
    setDownloadError(undefined);
    try {
      await downloadStatement(userId, periodId, format);
    } catch (error) {
      setDownloadError(error instanceof Error ? error.message : 'The download failed.');
    }
  };

  return (
    <Show loaded={loaded} retry={reload}>
      {(data) => {
        if ('notFound' in data) return <NotFound />;
        const { statement } = data;
        const base = `/reps/${userId}`;
        return (
          <div class="stack">
            <header class="page-header">
              <div>
                <h1>{props.isMe ? 'My pay' : `Pay of ${statement.user.display_name ?? statement.user.external_id}`}</h1>
                <p class="muted">
                  {periodLabel(statement.period.id)} · {statement.period.starts_on} to {statement.period.ends_on} ·{' '}
                  <StatusBadge status={statement.period.status} />
                  {live ? <span class="live-status"> · Live</span> : null}
                </p>
              </div>
              <nav class="period-nav" aria-label="Periods">
                <Link class="button" href={`${base}/periods/${previousPeriod(periodId)}`}>
                  ← {periodLabel(previousPeriod(periodId))}
                </Link>
                <Link class="button" href={`${base}/periods/${nextPeriod(periodId)}`}>
                  {periodLabel(nextPeriod(periodId))} →
                </Link>
              </nav>
            </header>
            {props.isMe ? <AcceptanceBanner meId={userId} /> : null}
            <div aria-live="polite">{news ? <Notice kind="info">{news}</Notice> : null}</div>
            <Summary statement={statement} />
            <HeldNotice statement={statement} isMe={props.isMe} />
            <CashNotice statement={statement} />
            {statement.final ? (
              <Notice kind="info">Final statement: last day {statement.final.leaving_date}.</Notice>
            ) : null}
            <div class="toolbar downloads">
              <span class="muted">Statement</span>
              <button type="button" class="button" onClick={() => download('pdf')}>
                Download PDF
              </button>
              <button type="button" class="button" onClick={() => download('csv')}>
                Download CSV
              </button>
              <QuestionButton
                subject={{
                  kind: 'statement',
                  period_id: statement.period.id,
                  user_id: userId,
                  label: `Statement of ${periodLabel(statement.period.id)}: tell us which deal is missing.`,
                }}
                currency={statement.plans[0]?.currency ?? statement.by_currency[0]?.currency ?? 'USD'}
                text="Report a missing deal"
                defaultType="missing_deal"
              />
            </div>
            {downloadError ? <Notice kind="error">{downloadError}</Notice> : null}
            <ApprovalPanel
              userId={userId}
              periodId={statement.period.id}
              meId={props.meId}
              externalId={statement.user.external_id}
              periodOpen={statement.period.status === 'open'}
              currency={statement.by_currency[0]?.currency ?? statement.plans[0]?.currency ?? 'USD'}
              version={statement}
              onApproved={() => void reload()}
            />
            {statement.plans.length === 0 ? (
              <Empty title="No plan pays you in this period">Plans that apply to you will show here.</Empty>
            ) : (
              statement.plans.map((plan) => <PlanPart key={plan.plan_id} plan={plan} />)
            )}
            {statement.manual_adjustments.length === 0 ? null : (
              <ManualAdjustments adjustments={statement.manual_adjustments} />
            )}
          </div>
        );
      }}
    </Show>
  );
}

function Summary(props: { statement: Statement }) {
  return (
    <div class="summary">
      {props.statement.by_currency.map((entry) => {
        const { totals } = entry;
        return (
          <dl class="summary-cards" key={entry.currency} aria-label={`Totals in ${entry.currency}`}>
            <div class="card summary-card">
              <dt>Earned</dt>
              <dd>
                <Money
                  cents={totals.pending_cents + totals.approved_cents + totals.paid_cents}
                  currency={entry.currency}
                />
              </dd>
            </div>
            <div class="card summary-card">
              <dt>Projected</dt>
              <dd>
                <Money cents={totals.projected_cents} currency={entry.currency} />
              </dd>
            </div>
            <div class="card summary-card">
              <dt>Payable</dt>
              <dd>
                <Money cents={entry.payable_cents} currency={entry.currency} />
              </dd>
            </div>
          </dl>
        );
      })}
    </div>
  );
}

/**
 * When the org's pay waits for plan acceptance, the part of the payable that payroll leaves out until the rep accepts
 * (`held_pending_acceptance_cents`). The amount is named when the statement has one currency; the statement's total
 * adds plans of different currencies, so with several it is not.
 */
function HeldNotice(props: { statement: Statement; isMe: boolean }) {
  const held = props.statement.held_pending_acceptance_cents;
  if (held <= 0) return null;
  const [only, ...others] = props.statement.by_currency;
  const amount = only && others.length === 0 ? <Money cents={held} currency={only.currency} /> : null;
  return (
    <Notice kind="info">
      {amount ? <>{amount} of the payable </> : 'Part of the payable '}
      {props.isMe
        ? 'waits until you accept your plan: payroll pays it once you have. '
        : 'waits until this rep accepts their plan: payroll pays it once they have.'}
      {props.isMe ? <Link href="/acceptances">See your plan acceptances</Link> : null}
    </Notice>
  );
}

/**
 * Pay on cash (docs/plan-features.md): what the period's commissions hold until the customer pays, and what customer
 * payments released in the period. Amounts are named when the statement has one currency, as in HeldNotice.
 */
function CashNotice(props: { statement: Statement }) {
  const held = props.statement.held_until_paid_cents ?? 0;
  const released = props.statement.released_on_payment_cents ?? 0;
  if (held === 0 && released === 0) return null;
  const [only, ...others] = props.statement.by_currency;
  const single = only && others.length === 0 ? only.currency : null;
  return (
    <Notice kind="info">
      {held !== 0 ? (
        <>
          {single ? <Money cents={held} currency={single} /> : 'Part'} of this period's commissions is paid only as the
          customer pays.{' '}
        </>
      ) : null}
      {released !== 0 ? (
        <>
          {single ? <Money cents={released} currency={single} /> : 'Part'} of the payable was released by customer
          payments this period.
        </>
      ) : null}
    </Notice>
  );
}

const CATEGORY_LABELS: Record<Schemas['AdjustmentCategory'], string> = {
  one_off_bonus: 'One-off bonus',
  correction: 'Correction',
  guarantee: 'Guarantee',
  deduction: 'Deduction',
};

/** The manual adjustments an admin added to the period: not lines of a plan, but paid with them. */
function ManualAdjustments(props: { adjustments: Schemas['Adjustment'][] }) {
  return (
    <Section title="Adjustments">
      <p class="muted small">Added by an administrator for what no plan rule covers; paid with this period.</p>
      <div class="table-wrap">
        <table class="lines">
          <caption class="visually-hidden">Manual adjustments</caption>
          <thead>
            <tr>
              <th scope="col">Adjustment</th>
              <th scope="col">Why</th>
              <th scope="col">Status</th>
              <th scope="col" class="numeric">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            {props.adjustments.map((adjustment) => (
              <tr key={adjustment.id} data-adjustment-id={adjustment.id}>
                <td class="wrap">
                  <div class="strong">{CATEGORY_LABELS[adjustment.category]}</div>
                  <div class="muted small">{adjustment.id}</div>
                </td>
                <td class="wrap">
                  {adjustment.reason}
                  {adjustment.voids_id ? <div class="muted small">Voids {adjustment.voids_id}</div> : null}
                  {adjustment.voided_by_id ? <div class="muted small">Voided by {adjustment.voided_by_id}</div> : null}
                </td>
                <td>
                  <StatusBadge status={adjustment.status} />
                </td>
                <td class="numeric">
                  <Money cents={adjustment.amount_cents} currency={adjustment.currency} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}

function PlanPart(props: { plan: StatementPlan }) {
  const { plan } = props;
  const rows = [
    ...plan.lines.map((line) => ({ ...line, note: null as string | null })),
    ...plan.adjustments.map((line) => ({
      ...line,
      note: `${line.kind === 'clawback' ? 'Clawback' : 'Top-up'} for ${periodLabel(line.from_period_id)}: ${line.reason}`,
    })),
  ];
  return (
    <Section title={plan.plan_name}>
      <AttainmentBar percent={plan.attainment.percent} label={`Attainment under ${plan.plan_name}`} />
      <p class="muted small">
        Won <Money cents={plan.attainment.won_cents} currency={plan.currency} />
        {plan.attainment.quota_cents === null ? null : (
          <>
            {' '}
            of a quota of <Money cents={plan.attainment.quota_cents} currency={plan.currency} />
          </>
        )}
      </p>
      {rows.length === 0 ? (
        <Empty title="No lines yet">Deals you win in this period will show here.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="lines">
            <caption class="visually-hidden">Lines of {plan.plan_name}</caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Why</th>
                <th scope="col">Status</th>
                <th scope="col" class="numeric">
                  Amount
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.earning_id}>
                  <td>
                    <div class="strong">{row.chip_name}</div>
                    <div class="muted small">{row.deal_external_id ?? 'Period'}</div>
                  </td>
                  <td class="wrap">
                    {row.explanation}
                    {row.note ? <div class="muted small">{row.note}</div> : null}
                    <div>
                      <Link href={`/earnings/${row.earning_id}`}>
                        How is this computed?
                        <span class="visually-hidden">
                          {' '}
                          ({row.chip_name}, {row.deal_external_id ?? 'period'})
                        </span>
                      </Link>
                    </div>
                    <div>
                      <QuestionButton
                        subject={{
                          kind: 'earning',
                          earning_id: row.earning_id,
                          label: `${row.chip_name}, ${row.deal_external_id ?? 'period'}`,
                        }}
                        currency={plan.currency}
                        text="Question this line"
                        hiddenText={`${row.chip_name}, ${row.deal_external_id ?? 'period'}`}
                        defaultType="wrong_amount"
                      />
                    </div>
                  </td>
                  <td>
                    <StatusBadge status={row.status} />
                  </td>
                  <td class="numeric">
                    <Money cents={row.amount_cents} currency={plan.currency} />
                  </td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row" colSpan={3}>
                  Payable under this plan
                </th>
                <td class="numeric strong">
                  <Money cents={plan.payable_cents} currency={plan.currency} />
                </td>
              </tr>
            </tfoot>
          </table>
        </div>
      )}
    </Section>
  );
}
