import { useState } from 'preact/hooks';
import { formatMinorUnits } from '../../../src/domain/currencies.ts';
import { shortDateTime } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import { Badge, ConfirmDialog, Empty, type Outcome, OutcomeNotice, PageHeader, Show, useLoad } from '../components.tsx';
import { PolicyView } from './accountingPolicy.tsx';
import { SchedulesView } from './accountingSchedules.tsx';

// Commission expense accounting (docs/accounting.md): the roll-forward and journal entries of a range of months,
// their CSV exports and closing a month; a deal's schedules; the policy in force and applying a policy file.

type RollForward = Schemas['AccountingRollForward'];
type Journal = Schemas['AccountingJournal'];

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

function thisMonth(offset: number): string {
  const now = new Date();
  const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
  return date.toISOString().slice(0, 7);
}

function csvHref(report: 'roll-forward' | 'waterfall' | 'journal', from: string, to: string): string {
  return `/admin/v1/accounting/${report}?${new URLSearchParams({ from, to, format: 'csv' })}`;
}

const VIEWS = [
  ['reports', 'Reports'],
  ['schedules', 'Schedules'],
  ['policy', 'Policy'],
] as const;

type View = (typeof VIEWS)[number][0];

export function AccountingPage(props: { canChange: boolean }) {
  const [view, setView] = useState<View>('reports');
  const [policy, reloadPolicy] = useLoad(async () => {
    const answer = await api.GET('/admin/v1/accounting/policy');
    return answer.response.status === 404 ? { data: null } : answer;
  }, []);
  const onApplied = () => void reloadPolicy();

  return (
    <>
      <PageHeader
        title="Accounting"
        description="Commissions capitalised and amortised over their contracts' benefit period, from the earnings ledger. A closed month never changes; what is learnt later lands in the next open month."
      />
      <Show loaded={policy} retry={reloadPolicy}>
        {(version) =>
          version === null ? (
            <PolicyView loaded={null} canChange={props.canChange} onApplied={onApplied} />
          ) : (
            <>
              <nav class="view-switch" aria-label="Accounting views">
                {VIEWS.map(([key, title]) => (
                  <button
                    type="button"
                    key={key}
                    class={key === view ? 'button button-primary' : 'button'}
                    aria-pressed={key === view}
                    onClick={() => setView(key)}
                  >
                    {title}
                  </button>
                ))}
              </nav>
              {view === 'reports' ? <Reports canChange={props.canChange} /> : null}
              {view === 'schedules' ? <SchedulesView /> : null}
              {view === 'policy' ? (
                <PolicyView loaded={version} canChange={props.canChange} onApplied={onApplied} />
              ) : null}
            </>
          )
        }
      </Show>
    </>
  );
}

/** The roll-forward and journal entries of a range of months, their CSV exports, and closing a month. */
function Reports(props: { canChange: boolean }) {
  const [range, setRange] = useState({ from: thisMonth(-11), to: thisMonth(0) });
  const [draft, setDraft] = useState(range);
  const [closeMonth, setCloseMonth] = useState(thisMonth(-1));
  const [closing, setClosing] = useState<string | undefined>();
  const [message, setMessage] = useState<Outcome | undefined>();
  const [reports, reload] = useLoad(async () => {
    const query = { params: { query: range } };
    const [rolled, entries] = await Promise.all([
      api.GET('/admin/v1/accounting/roll-forward', query),
      api.GET('/admin/v1/accounting/journal', query),
    ]);
    const error = rolled.error ?? entries.error;
    if (error || !rolled.data || !entries.data) return { error };
    return { data: { rollForward: rolled.data as RollForward, journal: entries.data as Journal } };
  }, [range.from, range.to]);

  const close = async (month: string) => {
    const { data, error } = await api.POST('/admin/v1/accounting/closes', { body: { month } });
    setMessage(
      data
        ? { kind: 'success', text: `Closed ${data.months.join(', ')} at ${shortDateTime(data.closed_at)}.` }
        : { kind: 'error', text: describeError(error) },
    );
    void reload();
  };

  return (
    <>
      <OutcomeNotice outcome={message} />
      <form
        class="card inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (MONTH.test(draft.from) && MONTH.test(draft.to)) setRange(draft);
        }}
      >
        <div class="field">
          <label for="accounting-from">From</label>
          <input
            id="accounting-from"
            type="month"
            value={draft.from}
            onInput={(event) => setDraft({ ...draft, from: event.currentTarget.value })}
          />
        </div>
        <div class="field">
          <label for="accounting-to">To</label>
          <input
            id="accounting-to"
            type="month"
            value={draft.to}
            onInput={(event) => setDraft({ ...draft, to: event.currentTarget.value })}
          />
        </div>
        <button type="submit" class="button">
          Show months
        </button>
      </form>
      <Show loaded={reports} retry={reload}>
        {({ rollForward, journal }) => (
          <>
            <p class="muted">
              Book {rollForward.book === 'asc_340_40' ? 'ASC 340-40' : 'IFRS 15'} in {rollForward.currency}, policy
              version {rollForward.policy_version}; closed through {rollForward.closed_through ?? 'no month yet'}.
              Download CSV: <a href={csvHref('roll-forward', range.from, range.to)}>roll-forward</a>,{' '}
              <a href={csvHref('waterfall', range.from, range.to)}>waterfall</a>,{' '}
              <a href={csvHref('journal', range.from, range.to)}>journal entries</a>.
            </p>
            <div class="card table-wrap">
              <table>
                <caption>Roll-forward of deferred commissions</caption>
                <thead>
                  <tr>
                    <th scope="col">Month</th>
                    <th scope="col" class="numeric">
                      Opening
                    </th>
                    <th scope="col" class="numeric">
                      Additions
                    </th>
                    <th scope="col" class="numeric">
                      Amortisation
                    </th>
                    <th scope="col" class="numeric">
                      Impairments
                    </th>
                    <th scope="col" class="numeric">
                      Closing
                    </th>
                    <th scope="col" class="numeric">
                      Expensed at once
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rollForward.months.map((row) => (
                    <tr key={row.month} data-month={row.month}>
                      <th scope="row">
                        {row.month} {row.closed ? <Badge tone="grey">Closed</Badge> : null}
                      </th>
                      {(
                        [
                          'opening_cents',
                          'additions_cents',
                          'amortisation_cents',
                          'impairments_cents',
                          'closing_cents',
                          'expensed_cents',
                        ] as const
                      ).map((column) => (
                        <td class="numeric" key={column} data-field={column}>
                          {formatMinorUnits(row[column], rollForward.currency, 'symbol')}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {journal.entries.length === 0 ? (
              <Empty title="No journal entries in these months" />
            ) : (
              <div class="card table-wrap">
                <table>
                  <caption>Journal entries</caption>
                  <thead>
                    <tr>
                      <th scope="col">Month</th>
                      <th scope="col">Entry</th>
                      <th scope="col">Account</th>
                      <th scope="col" class="numeric">
                        Debit
                      </th>
                      <th scope="col" class="numeric">
                        Credit
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {journal.entries.flatMap((entry) =>
                      entry.lines.map((line, index) => (
                        <tr key={`${entry.month}-${entry.entry}-${line.account}`}>
                          <td>{index === 0 ? entry.month : ''}</td>
                          <td>{index === 0 ? entry.description : ''}</td>
                          <td>{line.account}</td>
                          <td class="numeric">
                            {line.debit_cents ? formatMinorUnits(line.debit_cents, journal.currency, 'symbol') : ''}
                          </td>
                          <td class="numeric">
                            {line.credit_cents ? formatMinorUnits(line.credit_cents, journal.currency, 'symbol') : ''}
                          </td>
                        </tr>
                      )),
                    )}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </Show>
      {props.canChange ? (
        <form
          class="card inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (MONTH.test(closeMonth)) setClosing(closeMonth);
          }}
        >
          <div class="field">
            <label for="close-month">Close a month</label>
            <input
              id="close-month"
              type="month"
              value={closeMonth}
              onInput={(event) => setCloseMonth(event.currentTarget.value)}
            />
          </div>
          <button type="submit" class="button">
            Close…
          </button>
        </form>
      ) : null}
      <ConfirmDialog
        subject={closing}
        title={(month) => `Close ${month}?`}
        action={() => 'Close month'}
        tone="primary"
        onClose={() => setClosing(undefined)}
        onConfirm={(month) => close(month)}
      >
        {() => (
          <p>
            The month and the open months before it close. Their figures never change again; changes learnt later land
            in the next open month. This cannot be undone.
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}
