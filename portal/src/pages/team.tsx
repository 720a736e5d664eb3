import { formatMinorUnits } from '../../../src/domain/currencies.ts';
import { Badge, Show, useLoad } from '../../../ui/components.tsx';
import { Empty } from '../../../ui/states.tsx';
import { api, type Schemas, type Statement } from '../api.ts';
import { Money } from '../components.tsx';
import { periodLabel, today } from '../periods.ts';
import { Link } from '../router.ts';

// A manager's team: the reps they may see (transitively, their reports), read-only, with each report's period:
// payable, attainment against quota and pacing against the share of the period gone by, and the team's total. Each
// row opens that rep's pay and history. It reads what a rep token of the manager may read: /v1/users and each
// report's statement.

type User = Schemas['User'];
type Team = { reports: Array<{ user: User; statement: Statement }> };

/** The first plan with a quota: its attainment is the rep's attainment for the period. */
function quotaPlan(statement: Statement) {
  return statement.plans.find((plan) => plan.attainment.quota_cents !== null && plan.attainment.percent !== null);
}

/** The share of the period gone by on `day` (YYYY-MM-DD), 0 to 1: the days up to and including it over all its days. */
export function elapsedShare(period: { starts_on: string; ends_on: string }, day: string): number {
  const start = Date.parse(`${period.starts_on}T00:00:00Z`);
  const end = Date.parse(`${period.ends_on}T00:00:00Z`) + 86_400_000;
  const now = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
  return Math.max(0, Math.min(1, (now - start) / (end - start)));
}

/** Pace: attainment over the elapsed share, i.e. the attainment the period ends at if it goes on as so far. */
function pace(percent: number, elapsed: number): number | null {
  return elapsed === 0 ? null : percent / elapsed;
}

function PaceBadge(props: { pace: number }) {
  if (props.pace >= 100) return <Badge tone="green">on pace</Badge>;
  if (props.pace >= 80) return <Badge tone="amber">a little behind</Badge>;
  return <Badge tone="red">behind</Badge>;
}

export function TeamPage(props: { meId: string; periodId: string }) {
  const [loaded, reload] = useLoad<Team>(async () => {
    const users = await api.GET('/v1/users', { params: { query: { limit: 200 } } });
    if (users.error) return { error: users.error };
    const reports = users.data.users.filter((user) => user.id !== props.meId);
    const answers = await Promise.all(
      reports.map((user) =>
        api.GET('/v1/users/{id}/statements/{period_id}', {
          params: { path: { id: user.id, period_id: props.periodId } },
        }),
      ),
    );
    const failed = answers.find((answer) => answer.error);
    if (failed) return { error: failed.error };
    return {
      data: { reports: reports.map((user, index) => ({ user, statement: answers[index]?.data as Statement })) },
    };
  }, [props.meId, props.periodId]);

  return (
    <div class="stack">
      <header class="page-header">
        <div>
          <h1>My team</h1>
          <p class="muted">
            The reps who report to you in {periodLabel(props.periodId)}. Their pay is yours to read, not to change.
          </p>
        </div>
      </header>
      <Show loaded={loaded} retry={reload}>
        {({ reports }) => {
          if (reports.length === 0)
            return <Empty title="Nobody reports to you">Reps who report to you show here.</Empty>;
          const period = reports[0]?.statement.period;
          const elapsed = period ? elapsedShare(period, today()) : 1;
          // The team's total per currency (a team paid in one currency has one line).
          const totals = new Map<string, number>();
          for (const { statement } of reports) {
            for (const entry of statement.by_currency) {
              totals.set(entry.currency, (totals.get(entry.currency) ?? 0) + entry.payable_cents);
            }
          }
          return (
            <section class="card portal-section">
              <p class="muted small" id="team-pace-note">
                {Math.round(elapsed * 100)}% of {periodLabel(props.periodId)} has gone by. Pace is the attainment the
                period ends at if it goes on as so far (attainment ÷ the share gone by); 100% reaches quota.
              </p>
              <div class="table-wrap">
                <table class="team-table" aria-describedby="team-pace-note">
                  <caption class="visually-hidden">Your reports in {periodLabel(props.periodId)}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Rep</th>
                      <th scope="col" class="numeric">
                        Payable
                      </th>
                      <th scope="col" class="numeric">
                        Attainment
                      </th>
                      <th scope="col" class="numeric">
                        Pace
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {reports.map(({ user, statement }) => {
                      const plan = quotaPlan(statement);
                      const percent = plan?.attainment.percent ?? null;
                      const paced = percent === null ? null : pace(percent, elapsed);
                      const name = user.display_name ?? user.external_id;
                      return (
                        <tr key={user.id}>
                          <th scope="row">
                            <Link href={`/reps/${user.id}/periods/${props.periodId}`}>{name}</Link>
                            {user.display_name === null ? null : <span class="muted small"> {user.external_id}</span>}
                            <div class="small">
                              <Link href={`/reps/${user.id}/history`}>
                                History<span class="visually-hidden"> of {name}</span>
                              </Link>
                            </div>
                          </th>
                          <td class="numeric" data-label="Payable">
                            {statement.by_currency.length === 0 ? (
                              <Money cents={0} currency={plan?.currency ?? 'USD'} />
                            ) : (
                              statement.by_currency.map((entry) => (
                                <div key={entry.currency}>
                                  <Money cents={entry.payable_cents} currency={entry.currency} />
                                </div>
                              ))
                            )}
                          </td>
                          <td class="numeric" data-label="Attainment">
                            {percent === null || plan?.attainment.quota_cents == null ? (
                              <span class="muted">no quota</span>
                            ) : (
                              <>
                                <strong>{percent.toFixed(1)}%</strong>
                                <div class="muted small">
                                  of {formatMinorUnits(plan.attainment.quota_cents, plan.currency, 'symbol')}
                                </div>
                              </>
                            )}
                          </td>
                          <td class="numeric" data-label="Pace">
                            {paced === null ? (
                              <span class="muted">—</span>
                            ) : (
                              <>
                                <strong>{paced.toFixed(0)}%</strong>
                                <div>
                                  <PaceBadge pace={paced} />
                                </div>
                              </>
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                  <tfoot>
                    <tr>
                      <th scope="row">Team total</th>
                      <td class="numeric strong" data-label="Payable">
                        {[...totals].map(([currency, cents]) => (
                          <div key={currency}>
                            <Money cents={cents} currency={currency} />
                          </div>
                        ))}
                      </td>
                      <td />
                      <td />
                    </tr>
                  </tfoot>
                </table>
              </div>
            </section>
          );
        }}
      </Show>
    </div>
  );
}
