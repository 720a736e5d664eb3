import { useState } from 'preact/hooks';
import { formatMinorUnits } from '../../../src/domain/currencies.ts';
import { api, type Schemas } from '../api.ts';
import { Badge, Empty, Show, useLoad } from '../components.tsx';

// The amortisation schedules of a deal's or a rep's capitalisable earning lines (docs/accounting.md, Schedules): one
// per rep's chip of a plan on a deal, month by month, each month with the trace from which a person can recompute
// its figures.

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

interface Whose {
  deal: string;
  rep: string;
}

const WHOSE_FIELDS = [
  ['deal', 'Deal (external id)'],
  ['rep', 'Rep (external id)'],
] as const;

function described(whose: Whose): string {
  return [whose.deal ? `deal ${whose.deal}` : '', whose.rep ? `rep ${whose.rep}` : ''].filter(Boolean).join(' and ');
}

export function SchedulesView() {
  const [draft, setDraft] = useState<Whose>({ deal: '', rep: '' });
  const [whose, setWhose] = useState<Whose | undefined>();
  const [loaded, reload] = useLoad(async () => {
    if (whose === undefined) return { data: null };
    const query = {
      ...(whose.deal ? { deal_external_id: whose.deal } : {}),
      ...(whose.rep ? { user_external_id: whose.rep } : {}),
    };
    return api.GET('/admin/v1/accounting/schedules', { params: { query } });
  }, [whose?.deal, whose?.rep]);
  const chosen = { deal: draft.deal.trim(), rep: draft.rep.trim() };

  return (
    <>
      <form
        class="card inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (chosen.deal || chosen.rep) setWhose(chosen);
        }}
      >
        {WHOSE_FIELDS.map(([key, label]) => (
          <div class="field" key={key}>
            <label for={`schedule-${key}`}>{label}</label>
            <input
              id={`schedule-${key}`}
              value={draft[key]}
              autocomplete="off"
              onInput={(event) => setDraft({ ...draft, [key]: event.currentTarget.value })}
            />
          </div>
        ))}
        <button type="submit" class="button" disabled={!chosen.deal && !chosen.rep}>
          Show schedules
        </button>
      </form>
      {whose === undefined ? (
        <Empty title="Choose a deal or a rep">
          Their commissions' schedules show here, month by month, with their traces.
        </Empty>
      ) : (
        <Show loaded={loaded} retry={reload}>
          {(data) =>
            data ? (
              <>
                {data.left_out.length > 0 ? (
                  <p class="muted">
                    Left out of the book: {data.left_out.map((line) => `${line.line_key} (${line.detail})`).join('; ')}
                  </p>
                ) : null}
                {data.schedules.length === 0 ? (
                  <Empty title={`No schedules for ${described(whose)}`}>
                    No commission of theirs is capitalisable under the policy, or no period of theirs is locked yet.
                  </Empty>
                ) : (
                  data.schedules.map((schedule) => (
                    <ScheduleTable key={schedule.line_key} schedule={schedule} currency={data.currency} />
                  ))
                )}
              </>
            ) : null
          }
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
          Deal {schedule.deal_external_id ?? '(none)'} · rep {schedule.user_external_id} · plan {schedule.plan_key} ·
          chip {schedule.chip_key}:{' '}
          {schedule.treatment === 'expensed' ? (
            <Badge tone="grey">Expensed at once</Badge>
          ) : (
            <Badge tone="blue">Capitalised</Badge>
          )}{' '}
          {formatMinorUnits(schedule.capitalised_cents, currency, 'symbol')}, {schedule.benefit_months} months from{' '}
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
                  {formatMinorUnits(month[column], currency, 'symbol')}
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
