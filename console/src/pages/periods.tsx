import { useRef, useState } from 'preact/hooks';
import { formatMinorUnits } from '../../../src/domain/currencies.ts';
import { plural, shortDateTime } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import {
  Badge,
  ConfirmDialog,
  Empty,
  Field,
  type Outcome,
  OutcomeNotice,
  PageHeader,
  ShowList,
  useLoad,
} from '../components.tsx';
import { Link } from '../router.tsx';

type Period = Schemas['Period'];
type Waiting = NonNullable<Schemas['Error']['waiting']>;
const STATUSES = ['projected', 'pending', 'approved', 'paid'] as const;
type Move = { period: Period; kind: 'lock' | 'pay' | 'reopen' };
/** Why a lock was refused in a way a reason overrides: statements waiting for approval, or a period not ended. */
type NeedsReason = { id: string; statements: Waiting; endsOn: string | undefined };

function totals(period: Period, status: (typeof STATUSES)[number]) {
  return period.totals.filter((entry) => entry.status === status);
}

/** Amounts per currency, one under the other, by the shared formatter; a dash when there are none. */
function Amounts(props: { amounts: ReadonlyArray<{ currency: string; amount_cents: number; note?: string }> }) {
  if (props.amounts.length === 0) return <span class="muted">—</span>;
  return (
    <>
      {props.amounts.map((each) => (
        <div key={each.currency}>
          <div>{formatMinorUnits(each.amount_cents, each.currency, 'symbol')}</div>
          {each.note ? <div class="muted small">{each.note}</div> : null}
        </div>
      ))}
    </>
  );
}

/** What Mark paid does, said before it is done: with four-eyes on, the first admin's click only records a request. */
function payDialogText(period: Period, fourEyes: boolean): string {
  const pays = 'Approved earnings become paid, and a paid period never reopens.';
  if (!fourEyes) return pays;
  if (period.payment_request) {
    return `${period.payment_request.requested_by} asked to pay ${period.id} on ${shortDateTime(period.payment_request.requested_at)} (UTC). Confirming pays it: ${pays} The admin who asked cannot confirm their own request.`;
  }
  return `Four-eyes payment is on: this records your request to pay ${period.id}, and nothing is paid yet. A second, different admin confirms it with Mark paid; until then the period stays locked.`;
}

export function PeriodsPage(props: { canChange: boolean }) {
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/periods'), []);
  const [settings, reloadSettings] = useLoad(() => api.GET('/admin/v1/pay-settings'), []);
  const fourEyes = settings.state === 'ready' && settings.data.four_eyes_payment;
  const [move, setMove] = useState<Move | undefined>();
  const [lockId, setLockId] = useState('');
  const [message, setMessage] = useState<Outcome | undefined>();
  const [waiting, setWaiting] = useState<NeedsReason | undefined>();
  const [overrideReason, setOverrideReason] = useState('');
  const [reopenReason, setReopenReason] = useState('');

  const request = (kind: Move['kind'], id: string, reason?: string) => {
    const path = { params: { path: { id } } };
    if (kind === 'lock') {
      return api.POST('/admin/v1/periods/{id}/lock', {
        ...path,
        ...(reason ? { body: { override_reason: reason } } : {}),
      });
    }
    if (kind === 'reopen')
      return api.POST('/admin/v1/periods/{id}/reopen', { ...path, body: { reason: reason ?? '' } });
    return api.POST('/admin/v1/periods/{id}/mark-paid', path);
  };

  const run = async (kind: Move['kind'], id: string, reason?: string) => {
    const { data, error } = await request(kind, id, reason);
    setWaiting(
      error?.waiting || error?.ends_on ? { id, statements: error.waiting ?? [], endsOn: error.ends_on } : undefined,
    );
    if (!data) setMessage({ kind: 'error', text: describeError(error) });
    else if (data.payment_request)
      setMessage({
        kind: 'success',
        text: `Payment of ${id} requested by ${data.payment_request.requested_by}: a second admin confirms it with Mark paid. Nothing is paid yet.`,
      });
    else if (data.reopen_request)
      setMessage({
        kind: 'success',
        text: `Reopening of ${id} requested by ${data.reopen_request.requested_by} ("${data.reopen_request.reason}"): a second admin confirms it with Reopen. The period stays locked until then.`,
      });
    else if (!data.changed)
      setMessage({ kind: 'success', text: `Period ${id} was already ${data.period.status}; nothing changed.` });
    else
      setMessage({
        kind: 'success',
        text:
          kind === 'lock'
            ? `Locked ${id}: ${plural(data.rows_moved, 'pending earning')} approved.`
            : kind === 'reopen'
              ? `Reopened ${id}: ${plural(data.rows_moved, 'approved earning')} pending again; its approvals are reset.`
              : `Marked ${id} paid: ${plural(data.rows_moved, 'approved earning')} paid.`,
      });
    void reload();
  };

  return (
    <>
      <PageHeader
        title="Periods"
        description="Open periods take new earnings. Locking approves the pending earnings and freezes their amounts; a locked or paid period's payroll file (one row per rep: approved, paid, clawbacks, draws, adjustments, total) is under Payroll; marking paid records the payout. A locked period can be reopened with a reason until it is paid; a paid period never reopens."
      />
      <OutcomeNotice outcome={message} />
      {waiting && props.canChange ? (
        <form
          class="card inline-form"
          aria-labelledby="waiting-title"
          onSubmit={(event) => {
            event.preventDefault();
            if (overrideReason.trim()) void run('lock', waiting.id, overrideReason.trim());
          }}
        >
          <div>
            <h2 id="waiting-title">
              {waiting.statements.length > 0
                ? `Statements waiting for approval in ${waiting.id}`
                : `${waiting.id} has not ended`}
            </h2>
            {waiting.endsOn ? (
              <p>
                Its last day is {waiting.endsOn}. Lock it early only on purpose: the reason is recorded in the audit
                log.
              </p>
            ) : null}
            <ul>
              {waiting.statements.map((each) => (
                <li key={each.user_id}>
                  {each.user_external_id}:{' '}
                  {each.state === 'waiting_rep' ? 'waiting for the rep' : 'waiting for a manager'}
                </li>
              ))}
            </ul>
          </div>
          <div class="field">
            <label for="override-reason">Lock anyway, because</label>
            <input
              id="override-reason"
              required
              maxLength={1000}
              value={overrideReason}
              onInput={(event) => setOverrideReason(event.currentTarget.value)}
            />
          </div>
          <button type="submit" class="button">
            Lock with override
          </button>
        </form>
      ) : null}
      <PaySettingsCard canChange={props.canChange} onSaved={() => void reloadSettings()} />
      {props.canChange ? (
        <form
          class="card inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (lockId.trim()) setMove({ kind: 'lock', period: { id: lockId.trim() } as Period });
          }}
        >
          <div class="field">
            <label for="lock-period">Lock a period by id</label>
            <input
              id="lock-period"
              placeholder="2026-04 or 2026-Q2"
              pattern="\d{4}-(0[1-9]|1[0-2]|Q[1-4])"
              value={lockId}
              onInput={(event) => setLockId(event.currentTarget.value)}
            />
          </div>
          <button type="submit" class="button">
            Lock…
          </button>
        </form>
      ) : null}
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.periods}
        empty={
          <Empty title="No periods yet">Periods appear when earnings are booked into them, or when you lock one.</Empty>
        }
      >
        {(periods) => (
          <div class="card table-wrap">
            <table>
              <caption class="visually-hidden">Periods with their earnings by status</caption>
              <thead>
                <tr>
                  <th scope="col">Period</th>
                  <th scope="col">Status</th>
                  {STATUSES.map((status) => (
                    <th scope="col" class="numeric" key={status}>
                      {status[0]?.toUpperCase()}
                      {status.slice(1)}
                    </th>
                  ))}
                  <th scope="col" class="numeric">
                    Adjustments
                  </th>
                  <th scope="col" class="numeric">
                    Payable
                  </th>
                  <th scope="col">Changed (UTC)</th>
                  <th scope="col">Sign-off</th>
                  <th scope="col">Payroll</th>
                  {props.canChange ? (
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  ) : null}
                </tr>
              </thead>
              <tbody>
                {[...periods].reverse().map((period) => (
                  <tr key={period.id} data-period-id={period.id}>
                    <th scope="row">
                      <div class="strong">{period.id}</div>
                      <div class="muted small nowrap">
                        {period.starts_on} – {period.ends_on}
                      </div>
                    </th>
                    <td data-field="status">
                      {period.status === 'open' ? (
                        <Badge tone="blue">Open</Badge>
                      ) : period.status === 'locked' ? (
                        <Badge tone="amber">Locked</Badge>
                      ) : (
                        <Badge tone="green">Paid</Badge>
                      )}
                      {period.payment_request ? (
                        <div class="muted small" data-field="payment-request">
                          Payment requested by {period.payment_request.requested_by}
                        </div>
                      ) : null}
                      {period.reopen_request ? (
                        <div class="muted small" data-field="reopen-request">
                          Reopening requested by {period.reopen_request.requested_by}
                        </div>
                      ) : null}
                    </td>
                    {STATUSES.map((status) => (
                      <td class="numeric" key={status}>
                        <Amounts
                          amounts={totals(period, status).map((entry) => ({
                            ...entry,
                            note: plural(entry.rows, 'row'),
                          }))}
                        />
                      </td>
                    ))}
                    <td class="numeric" data-field="adjustments">
                      <Amounts
                        amounts={period.adjustments.map((entry) => ({
                          ...entry,
                          note: plural(entry.count, 'adjustment'),
                        }))}
                      />
                    </td>
                    <td class="numeric strong" data-field="payable">
                      <Amounts amounts={period.payable} />
                    </td>
                    <td class="nowrap">{shortDateTime(period.paid_at ?? period.locked_at)}</td>
                    <td>
                      <Link href={`/periods/${encodeURIComponent(period.id)}/sign-off`}>
                        Board<span class="visually-hidden"> of {period.id}</span>
                      </Link>
                    </td>
                    <td>
                      {period.status === 'open' ? (
                        <span class="muted">—</span>
                      ) : (
                        <a
                          href={`/admin/v1/periods/${encodeURIComponent(period.id)}/payroll-export`}
                          download
                          aria-label={`Download the payroll CSV of ${period.id}`}
                        >
                          CSV
                        </a>
                      )}
                    </td>
                    {props.canChange ? (
                      <td class="actions">
                        {period.status === 'open' ? (
                          <button
                            type="button"
                            class="button"
                            onClick={() => setMove({ period, kind: 'lock' })}
                            aria-label={`Lock ${period.id}`}
                          >
                            Lock
                          </button>
                        ) : null}
                        {period.status === 'locked' ? (
                          <>
                            <button
                              type="button"
                              class="button"
                              onClick={() => setMove({ period, kind: 'pay' })}
                              aria-label={`Mark ${period.id} paid`}
                            >
                              Mark paid
                            </button>
                            <button
                              type="button"
                              class="button"
                              onClick={() => {
                                setReopenReason('');
                                setMove({ period, kind: 'reopen' });
                              }}
                              aria-label={`Reopen ${period.id}`}
                            >
                              Reopen…
                            </button>
                          </>
                        ) : null}
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ShowList>
      <ConfirmDialog
        subject={move}
        title={(chosen) =>
          chosen.kind === 'lock'
            ? `Lock ${chosen.period.id}?`
            : chosen.kind === 'reopen'
              ? `Reopen ${chosen.period.id}?`
              : chosen.period.payment_request && fourEyes
                ? `Confirm the payment of ${chosen.period.id}?`
                : fourEyes
                  ? `Request the payment of ${chosen.period.id}?`
                  : `Mark ${chosen.period.id} paid?`
        }
        action={(chosen) =>
          chosen.kind === 'lock'
            ? 'Lock period'
            : chosen.kind === 'reopen'
              ? 'Reopen'
              : fourEyes && !chosen.period.payment_request
                ? 'Request payment'
                : 'Mark paid'
        }
        tone="primary"
        disabled={(chosen) => chosen.kind === 'reopen' && !reopenReason.trim()}
        onClose={() => setMove(undefined)}
        onConfirm={(chosen) =>
          run(chosen.kind, chosen.period.id, chosen.kind === 'reopen' ? reopenReason.trim() : undefined)
        }
      >
        {(chosen) =>
          chosen.kind === 'reopen' ? (
            <>
              <p>
                Approved earnings become pending again and every statement's approval is reset. Changes from now on, and
                those booked in a later open period while it was locked, land in {chosen.period.id}. Lock it again when
                it is ready. With four-eyes payment on, this records your request and a second admin confirms it.
              </p>
              <Field label="Reason (recorded in the audit log)" id="reopen-reason">
                <input
                  id="reopen-reason"
                  required
                  maxLength={1000}
                  value={reopenReason}
                  onInput={(event) => setReopenReason(event.currentTarget.value)}
                />
              </Field>
            </>
          ) : (
            <p>
              {chosen.kind === 'lock'
                ? 'Pending earnings become approved and their amounts are frozen. Later changes to deals of this period are booked into the next open period, unless the period is reopened (with a reason, until it is paid).'
                : payDialogText(chosen.period, fourEyes)}
            </p>
          )
        }
      </ConfirmDialog>
    </>
  );
}

/** The approval policy, four-eyes payment (docs/pay-workflow.md) and pay waiting for plan acceptance. */
function PaySettingsCard(props: { canChange: boolean; onSaved: () => void }) {
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/pay-settings'), []);
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  // The settings as the admin last chose them: shown from the moment of the change, through the save, and then as the
  // save answered them. Any render in between (the periods list arriving, a reload) shows the choice, not the
  // settings read before it, which turned a just-ticked box back off until the save came back.
  const [chosen, setChosen] = useState<Schemas['PaySettings'] | undefined>();
  const latestSave = useRef(0);
  if (loaded.state !== 'ready') return null;
  const settings = chosen ?? loaded.data;
  const save = async (change: Schemas['PaySettingsChange']) => {
    const ticket = ++latestSave.current;
    setChosen({ ...settings, ...change });
    const { data, error } = await api.PUT('/admin/v1/pay-settings', { body: change });
    // Only the answer to the latest change decides what is shown; an earlier save answering late shows nothing.
    if (ticket !== latestSave.current) return;
    setOutcome(data ? { kind: 'success', text: 'Pay settings saved.' } : { kind: 'error', text: describeError(error) });
    setChosen(data);
    // The page's dialogs say what Mark paid does under the settings as saved.
    if (data) props.onSaved();
    // A refused change shows the settings as they stand.
    if (!data) void reload();
  };
  return (
    <div class="card inline-form">
      <div class="field">
        <label for="approval-policy">Statement approvals before lock</label>
        <select
          id="approval-policy"
          disabled={!props.canChange}
          value={settings.statement_approval_policy}
          onChange={(event) =>
            void save({ statement_approval_policy: event.currentTarget.value as Schemas['ApprovalPolicy'] })
          }
        >
          <option value="none">None</option>
          <option value="rep">The rep</option>
          <option value="manager">A manager</option>
          <option value="rep_then_manager">The rep, then a manager</option>
        </select>
      </div>
      <div class="field">
        <label for="four-eyes">
          <input
            id="four-eyes"
            type="checkbox"
            disabled={!props.canChange}
            checked={settings.four_eyes_payment}
            onChange={(event) => void save({ four_eyes_payment: event.currentTarget.checked })}
          />{' '}
          Four-eyes payment (a second admin confirms Mark paid)
        </label>
      </div>
      <div class="field">
        <label for="wait-for-acceptance">
          <input
            id="wait-for-acceptance"
            type="checkbox"
            disabled={!props.canChange}
            checked={settings.pay_waits_for_acceptance}
            onChange={(event) => void save({ pay_waits_for_acceptance: event.currentTarget.checked })}
          />{' '}
          Pay waits for reps to accept their plan
        </label>
      </div>
      <OutcomeNotice outcome={outcome} />
    </div>
  );
}
