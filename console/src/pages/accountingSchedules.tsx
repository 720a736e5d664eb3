import { useState } from 'preact/hooks';
import { api, type Schemas } from '../api.ts';
import { Badge, Empty, Show, useLoad } from '../components.tsx';
import { currencyAmount } from '../format.ts';

// The amortisation schedules of a deal's capitalisable earning lines (docs/accounting.md, Schedules): one per rep's
// chip of a plan, month by month, each month with the trace from which a person can recompute its figures.

type Schedules = Schemas['AccountingSchedules'];
type Schedule = Schedules['schedules'][number];

const COLUMNS = [
  ['opening_cents', 'Opening'],
  ['additions_cents', 'Additions'],
  ['amortisation_cents', 'Amortisation'],
  ['impairment_cents', 'Impairment'],
  ['expensed_cents', 'Expensed at once'],
  ['closing_cents', 'Closing'],
] as const;

export function SchedulesView() {
  const [draft, setDraft] = useState('');
  const [deal, setDeal] = useState<string | undefined>();
  const [rep, setRep] = useState('');
  const [loaded, reload] = useLoad(
    async () =>
      deal === undefined
        ? { data: null }
        : api.GET('/admin/v1/accounting/schedules', { params: { query: { deal_external_id: deal } } }),
    [deal],
  );

  return (
    <>
      <form
        class="card inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (draft.trim() !== '') {
            setRep('');
            setDeal(draft.trim());
          }
        }}
      >
        <div class="field">
          <label for="schedule-deal">Deal (external id)</label>
          <input
            id="schedule-deal"
            value={draft}
            autocomplete="off"
            onInput={(event) => setDraft(event.currentTarget.value)}
          />
        </div>
        <button type="submit" class="button" disabled={draft.trim() === ''}>
          Show schedules
        </button>
      </form>
      {deal === undefined ? (
        <Empty title="Choose a deal">Its commissions' schedules show here, month by month, with their traces.</Empty>
      ) : (
        <Show loaded={loaded} retry={reload}>
          {(data) => {
            if (!data) return null;
            const reps = [...new Set(data.schedules.map((schedule) => schedule.user_external_id))].sort();
            const shown = data.schedules.filter((schedule) => rep === '' || schedule.user_external_id === rep);
            return (
              <>
                {data.left_out.length > 0 ? (
                  <p class="muted">
                    Left out of the book: {data.left_out.map((line) => `${line.line_key} (${line.detail})`).join('; ')}
                  </p>
                ) : null}
                {data.schedules.length === 0 ? (
                  <Empty title={`No schedules for deal ${deal}`}>
                    Its commissions are not capitalisable under the policy, or no period of theirs is locked yet.
                  </Empty>
                ) : (
                  <>
                    {reps.length > 1 ? (
                      <div class="field inline-field">
                        <label for="schedule-rep">Rep</label>
                        <select id="schedule-rep" value={rep} onChange={(event) => setRep(event.currentTarget.value)}>
                          <option value="">Every rep</option>
                          {reps.map((user) => (
                            <option key={user} value={user}>
                              {user}
                            </option>
                          ))}
                        </select>
                      </div>
                    ) : null}
                    {shown.map((schedule) => (
                      <ScheduleTable key={schedule.line_key} schedule={schedule} currency={data.currency} />
                    ))}
                  </>
                )}
              </>
            );
          }}
        </Show>
      )}
    </>
  );
}

function ScheduleTable(props: { schedule: Schedule; currency: string }) {
  const { schedule, currency } = props;
  return (
    <div class="card table-wrap" data-line={schedule.line_key}>
      <table>
        <caption>
          Rep {schedule.user_external_id} · plan {schedule.plan_key} · chip {schedule.chip_key}:{' '}
          {schedule.treatment === 'expensed' ? (
            <Badge tone="grey">Expensed at once</Badge>
          ) : (
            <Badge tone="blue">Capitalised</Badge>
          )}{' '}
          {currencyAmount(schedule.capitalised_cents, currency)}, {schedule.benefit_months} months from{' '}
          {schedule.benefit_start} to {schedule.benefit_last_month}
        </caption>
        <thead>
          <tr>
            <th scope="col">Month</th>
            {COLUMNS.map(([column, title]) => (
              <th scope="col" class="numeric" key={column}>
                {title}
              </th>
            ))}
            <th scope="col">Trace</th>
          </tr>
        </thead>
        <tbody>
          {schedule.months.map((month) => (
            <tr key={month.month} data-month={month.month}>
              <th scope="row">{month.month}</th>
              {COLUMNS.map(([column]) => (
                <td class="numeric" key={column} data-field={column}>
                  {currencyAmount(month[column], currency)}
                </td>
              ))}
              <td>
                <details>
                  <summary>How {month.month} is worked out</summary>
                  <ul class="explanation">
                    {month.trace.map((sentence) => (
                      <li key={sentence}>{sentence}</li>
                    ))}
                  </ul>
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
