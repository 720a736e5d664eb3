import { formatMinorUnits } from '../../../src/domain/currencies.ts';
import { Show, useLoad } from '../../../ui/components.tsx';
import { Empty } from '../../../ui/states.tsx';
import { api, type Schemas, type Statement } from '../api.ts';
import { Money, NotFound, Section, StatusBadge } from '../components.tsx';
import { periodLabel, periodsUpTo } from '../periods.ts';
import { Link } from '../router.ts';

// Period history: the last periods' statements with their status, a chart of earnings and attainment by period
// (plain SVG), and the payouts of the periods that are locked or paid.

const SHOWN_PERIODS = 6;

type Payout = Schemas['Payout'];
type History = { statements: Statement[]; payouts: Map<string, Payout[]> } | { notFound: true };

function earned(statement: Statement): number {
  const { totals } = statement;
  return totals.pending_cents + totals.approved_cents + totals.paid_cents;
}

/** A period that ended before Quotient first saw the rep and has nothing booked in it. */
function beforeRep(statement: Statement): boolean {
  const empty =
    statement.plans.every((plan) => plan.lines.length === 0 && plan.adjustments.length === 0) &&
    statement.manual_adjustments.length === 0 &&
    earned(statement) === 0 &&
    statement.totals.projected_cents === 0;
  return empty && statement.period.ends_on < statement.user.created_at.slice(0, 10);
}

/** Attainment of the period: that of its first plan with a quota. */
function attainment(statement: Statement): number | null {
  return statement.plans.find((plan) => plan.attainment.percent !== null)?.attainment.percent ?? null;
}

export function HistoryPage(props: { userId: string; periodId: string; isMe: boolean }) {
  const [loaded, reload] = useLoad<History>(async () => {
    const periods = periodsUpTo(props.periodId, SHOWN_PERIODS);
    const answers = await Promise.all(
      periods.map((period) =>
        api.GET('/v1/users/{id}/statements/{period_id}', {
          params: { path: { id: props.userId, period_id: period } },
        }),
      ),
    );
    if (answers.some((answer) => answer.response.status === 404)) return { data: { notFound: true } };
    const failed = answers.find((answer) => answer.error);
    if (failed) return { error: failed.error };
    const statements = answers.map((answer) => answer.data as Statement);
    const payouts = new Map<string, Payout[]>();
    await Promise.all(
      statements
        .filter((statement) => statement.period.status !== 'open')
        .map(async (statement) => {
          const { data } = await api.GET('/v1/payouts', { params: { query: { period_id: statement.period.id } } });
          payouts.set(
            statement.period.id,
            (data?.payouts ?? []).filter((payout) => payout.user_id === props.userId),
          );
        }),
    );
    return { data: { statements, payouts } };
  }, [props.userId, props.periodId]);

  return (
    <Show loaded={loaded} retry={reload}>
      {(data) => {
        if ('notFound' in data) return <NotFound />;
        const { statements, payouts } = data;
        const user = statements[0]?.user;
        // The first periods, before the rep was in Quotient and with nothing booked in them, were never theirs: they
        // are not shown (as open $0 periods they would read as months the rep was paid nothing).
        const first = statements.findIndex((statement) => !beforeRep(statement));
        const shown = statements.slice(first === -1 ? statements.length - 1 : first);
        const hidden = statements.length - shown.length;
        const currency =
          statements.find((statement) => statement.by_currency.length > 0)?.by_currency[0]?.currency ?? 'USD';
        const paidOut = statements.filter((statement) => (payouts.get(statement.period.id) ?? []).length > 0);
        // Pay that waits for the rep to accept a plan (an org setting): payroll leaves it out of the total.
        const anyHeld = [...payouts.values()].some((list) =>
          list.some((payout) => payout.held_pending_acceptance_cents > 0),
        );
        return (
          <div class="stack">
            <header class="page-header">
              <div>
                <h1>{props.isMe ? 'History' : `History of ${user?.display_name ?? user?.external_id ?? ''}`}</h1>
                <p class="muted">
                  {hidden === 0
                    ? `The last ${SHOWN_PERIODS} periods, their status and what they paid.`
                    : `The periods since ${periodLabel(shown[0]?.period.id ?? '')}, their status and what they paid; earlier ones had nothing for ${props.isMe ? 'you' : 'this rep'} in Quotient yet.`}
                </p>
              </div>
            </header>
            <Section title="Earnings and attainment by period">
              <HistoryChart statements={shown} currency={currency} />
            </Section>
            <Section title="Periods">
              <div class="table-wrap">
                <table class="compact-table">
                  <thead>
                    <tr>
                      <th scope="col">Period</th>
                      <th scope="col" class="numeric">
                        Payable
                      </th>
                      <th scope="col" class="numeric">
                        Attainment
                      </th>
                      <th scope="col" class="numeric">
                        Earned
                      </th>
                      <th scope="col" class="numeric">
                        Projected
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {[...shown].reverse().map((statement) => {
                      const percent = attainment(statement);
                      return (
                        <tr key={statement.period.id}>
                          <th scope="row">
                            <Link href={`/reps/${props.userId}/periods/${statement.period.id}`}>
                              {periodLabel(statement.period.id)}
                            </Link>
                            <div>
                              <StatusBadge status={statement.period.status} />
                            </div>
                          </th>
                          <td class="numeric strong">
                            <Money cents={statement.payable_cents} currency={currency} />
                          </td>
                          <td class="numeric">{percent === null ? '—' : `${percent.toFixed(1)}%`}</td>
                          <td class="numeric">
                            <Money cents={earned(statement)} currency={currency} />
                          </td>
                          <td class="numeric">
                            <Money cents={statement.totals.projected_cents} currency={currency} />
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            </Section>
            <Section title="Payouts">
              {paidOut.length === 0 ? (
                <Empty title="No payouts yet">Periods show here once they are locked for payroll.</Empty>
              ) : (
                <div class="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Period</th>
                        <th scope="col">Status</th>
                        <th scope="col" class="numeric">
                          Approved
                        </th>
                        <th scope="col" class="numeric">
                          Paid
                        </th>
                        <th scope="col" class="numeric">
                          Clawbacks
                        </th>
                        <th scope="col" class="numeric">
                          Total
                        </th>
                        {anyHeld ? (
                          <th scope="col" class="numeric">
                            Held for plan acceptance
                          </th>
                        ) : null}
                      </tr>
                    </thead>
                    <tbody>
                      {[...paidOut].reverse().flatMap((statement) =>
                        (payouts.get(statement.period.id) ?? []).map((payout) => (
                          <tr key={`${statement.period.id}-${payout.currency}`}>
                            <th scope="row">{periodLabel(statement.period.id)}</th>
                            <td>
                              <StatusBadge status={statement.period.status} />
                            </td>
                            <td class="numeric">
                              <Money cents={payout.approved_cents} currency={payout.currency} />
                            </td>
                            <td class="numeric">
                              <Money cents={payout.paid_cents} currency={payout.currency} />
                            </td>
                            <td class="numeric">
                              <Money cents={payout.clawback_cents} currency={payout.currency} />
                            </td>
                            <td class="numeric strong">
                              <Money cents={payout.total_cents} currency={payout.currency} />
                            </td>
                            {anyHeld ? (
                              <td class="numeric">
                                <Money cents={payout.held_pending_acceptance_cents} currency={payout.currency} />
                              </td>
                            ) : null}
                          </tr>
                        )),
                      )}
                    </tbody>
                  </table>
                </div>
              )}
            </Section>
          </div>
        );
      }}
    </Show>
  );
}

const WIDTH = 640;
const HEIGHT = 240;
const PAD = { top: 16, right: 100, bottom: 32, left: 92 };

/** A round top for the money axis: 1, 2, 2.5 or 5 times a power of ten, at least `max`. */
function niceCeiling(max: number): number {
  const power = 10 ** Math.floor(Math.log10(max));
  return (([1, 2, 2.5, 5, 10].find((step) => step * power >= max) ?? 10) * power) as number;
}

/**
 * The top of the attainment axis: above the highest attainment with room to spare, and never a value that puts
 * 100% on one of the money axis's gridlines (its top and its middle), where the quota line would read as an amount.
 */
function percentCeiling(maxPercent: number): number {
  const candidates = [125, 150, 250, 300, 400, 500, 600, 800, 1000];
  return candidates.find((top) => top >= maxPercent * 1.1) ?? Math.ceil((maxPercent * 1.1) / 250) * 250 + 50;
}

/**
 * Bars of earnings on the left axis (money, gridlines at its middle and top) and a line of attainment on an axis of
 * its own on the right (percent, labelled in the line's colour, the dashed quota line at 100% labelled as such), one
 * slot per period.
 */
function HistoryChart(props: { statements: Statement[]; currency: string }) {
  const values = props.statements.map((statement) => ({
    period: statement.period.id,
    earned: earned(statement),
    percent: attainment(statement),
  }));
  const maxEarned = niceCeiling(Math.max(1, ...values.map((value) => value.earned)));
  const maxPercent = percentCeiling(Math.max(100, ...values.map((value) => value.percent ?? 0)));
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotWidth / values.length;
  const y = (fraction: number) => PAD.top + plotHeight * (1 - fraction);
  const quotaY = y(100 / maxPercent);
  const points = values
    .map((value, index) =>
      value.percent === null
        ? null
        : `${PAD.left + slot * (index + 0.5)},${y(Math.min(value.percent, maxPercent) / maxPercent)}`,
    )
    .filter((point): point is string => point !== null);
  const summary = values
    .map(
      (value) =>
        `${periodLabel(value.period)}: earned ${formatMinorUnits(value.earned, props.currency, 'symbol')}, attainment ${
          value.percent === null ? 'none' : `${value.percent.toFixed(1)}%`
        }`,
    )
    .join('; ');
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`Earnings and attainment by period. ${summary}`}>
        {[0.5, 1].map((fraction) => (
          <g key={fraction} class="chart-money-tick">
            <line class="chart-grid" x1={PAD.left} y1={y(fraction)} x2={WIDTH - PAD.right} y2={y(fraction)} />
            <text class="chart-label" x={PAD.left - 6} y={y(fraction) + 4} text-anchor="end">
              {formatMinorUnits(Math.round(maxEarned * fraction), props.currency, 'symbol')}
            </text>
          </g>
        ))}
        <line class="chart-axis" x1={PAD.left} y1={y(0)} x2={WIDTH - PAD.right} y2={y(0)} />
        <line class="chart-axis" x1={PAD.left} y1={y(0)} x2={PAD.left} y2={y(1)} />
        <line class="chart-axis chart-percent-axis" x1={WIDTH - PAD.right} y1={y(0)} x2={WIDTH - PAD.right} y2={y(1)} />
        <text class="chart-label" x={PAD.left - 6} y={y(0) + 4} text-anchor="end">
          0
        </text>
        <text class="chart-label chart-percent-label" x={WIDTH - PAD.right + 6} y={y(0) + 4}>
          0%
        </text>
        <text class="chart-label chart-percent-label" x={WIDTH - PAD.right + 6} y={y(1) + 4}>
          {maxPercent}%
        </text>
        <line class="chart-quota" x1={PAD.left} y1={quotaY} x2={WIDTH - PAD.right} y2={quotaY} />
        <text class="chart-label chart-percent-label chart-quota-label" x={WIDTH - PAD.right + 6} y={quotaY + 4}>
          100% quota
        </text>
        {values.map((value, index) => {
          const height = plotHeight * (value.earned / maxEarned);
          return (
            <g key={value.period}>
              <rect
                class="chart-bar"
                x={PAD.left + slot * index + slot * 0.2}
                y={y(0) - height}
                width={slot * 0.6}
                height={Math.max(0, height)}
              />
              <text class="chart-label" x={PAD.left + slot * (index + 0.5)} y={HEIGHT - 10} text-anchor="middle">
                {periodLabel(value.period)}
              </text>
            </g>
          );
        })}
        {points.length > 0 ? <polyline class="chart-line" points={points.join(' ')} /> : null}
        {points.map((point) => {
          const [cx, cy] = point.split(',');
          return <circle key={point} class="chart-dot" cx={cx} cy={cy} r={4} />;
        })}
      </svg>
      <figcaption class="chart-legend">
        <span class="legend-bar" aria-hidden="true" /> Earned (left axis, {props.currency})
        <span class="legend-line" aria-hidden="true" /> Attainment (right axis, % of quota; dashed: 100% quota)
      </figcaption>
    </figure>
  );
}
