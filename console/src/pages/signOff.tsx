import { useState } from 'preact/hooks';
import { formatMinorUnits } from '../../../src/domain/currencies.ts';
import { plural, shortDateTime } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import { Badge, Empty, type Outcome, OutcomeNotice, PageHeader, Show, useLoad } from '../components.tsx';
import { Link } from '../router.tsx';

type Board = Schemas['SignOffBoard'];
type Statement = Board['statements'][number];
type Person = Schemas['SignOffPerson'];

const POLICY: Record<Board['policy'], string> = {
  none: 'No approval is needed before the lock.',
  rep: 'Each rep approves their statement before the lock.',
  manager: "A manager above each rep approves the rep's statement before the lock.",
  rep_then_manager: 'Each rep approves their statement, then a manager above them, before the lock.',
};

function personName(person: Person): string {
  return person.display_name ? `${person.display_name} (${person.external_id})` : person.external_id;
}

function money(cents: number, currency: string): string {
  return formatMinorUnits(cents, currency, 'symbol');
}

/**
 * A period's sign-off board (docs/admin-console.md#sign-off-board): every statement with where its approval stands,
 * who it waits on since when, reset approvals with what changed; reminders to everyone waited on; the payment and
 * reopening requests waiting for a second admin; and the period's totals with its adjustments, per currency.
 */
export function SignOffPage(props: { periodId: string; canChange: boolean }) {
  const { periodId } = props;
  const [loaded, reload] = useLoad(
    () => api.GET('/admin/v1/periods/{id}/sign-off', { params: { path: { id: periodId } } }),
    [periodId],
  );
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const [busy, setBusy] = useState(false);

  const remind = async (userIds: string[]) => {
    setBusy(true);
    const { data, error } = await api.POST('/admin/v1/periods/{id}/sign-off/reminders', {
      params: { path: { id: periodId } },
      body: userIds.length > 0 ? { user_ids: userIds } : {},
    });
    setBusy(false);
    if (!data) setOutcome({ kind: 'error', text: describeError(error) });
    else {
      const skipped = data.skipped.filter((each) => each.reason === 'reminded_recently').length;
      setOutcome({
        kind: 'success',
        text: `Reminded ${plural(data.reminded.length, 'statement')}${skipped > 0 ? `; ${plural(skipped, 'statement')} reminded within the last hour skipped` : ''}. ${
          data.delivered_by_webhook
            ? 'The reminders went out through your webhook endpoints.'
            : 'No webhook endpoint takes statement.approval_reminder, so the reminders are recorded here and in the audit log only.'
        }`,
      });
    }
    void reload();
  };

  return (
    <>
      <PageHeader
        title={`Sign-off: ${periodId}`}
        description="Every statement of the period that pays something, with whose approval it waits for and since when. A reset approval shows what changed since it was given. Remind whoever is waited on; payment and reopening requests wait here for a second admin."
        actions={<Link href="/periods">All periods</Link>}
      />
      <OutcomeNotice outcome={outcome} />
      <Show loaded={loaded} retry={reload}>
        {(board) => <BoardView board={board} canChange={props.canChange} busy={busy} remind={remind} />}
      </Show>
    </>
  );
}

function BoardView(props: { board: Board; canChange: boolean; busy: boolean; remind: (ids: string[]) => unknown }) {
  const { board } = props;
  const waiting = board.statements.filter((each) => each.waiting_on.length > 0);
  return (
    <>
      <section class="card" aria-labelledby="sign-off-summary">
        <h2 id="sign-off-summary">
          {board.period_id}: {board.status}
        </h2>
        <p>{POLICY[board.policy]}</p>
        {board.totals.length === 0 ? (
          <p class="muted">Nothing is payable in this period yet.</p>
        ) : (
          <dl class="totals" data-testid="sign-off-totals">
            {board.totals.map((total) => (
              <div key={total.currency} data-currency={total.currency}>
                <dt>Payable ({total.currency})</dt>
                <dd>
                  <strong>{money(total.payable_cents, total.currency)}</strong>: earnings{' '}
                  {money(total.earnings_cents, total.currency)}, adjustments{' '}
                  {money(total.adjustments_cents, total.currency)}
                  {total.payroll_cents === null
                    ? ''
                    : `; the payroll file pays ${money(total.payroll_cents, total.currency)}`}
                  {total.held_pending_acceptance_cents !== 0
                    ? ` (${money(total.held_pending_acceptance_cents, total.currency)} held until plans are accepted)`
                    : ''}
                </dd>
              </div>
            ))}
          </dl>
        )}
        {board.payment_request ? (
          <p data-testid="payment-request">
            <Badge tone="amber">Payment requested</Badge> by {board.payment_request.requested_by} at{' '}
            {shortDateTime(board.payment_request.requested_at)} (UTC). A second, different admin pays it with Mark paid
            on the Periods page.
          </p>
        ) : null}
        {board.reopen_request ? (
          <p data-testid="reopen-request">
            <Badge tone="amber">Reopening requested</Badge> by {board.reopen_request.requested_by} at{' '}
            {shortDateTime(board.reopen_request.requested_at)} (UTC): “{board.reopen_request.reason}”. A second admin
            confirms it with Reopen on the Periods page.
          </p>
        ) : null}
        {props.canChange && board.status === 'open' && waiting.length > 0 ? (
          <button type="button" class="button" disabled={props.busy} onClick={() => void props.remind([])}>
            Remind everyone waited on ({waiting.length})
          </button>
        ) : null}
      </section>
      {board.statements.length === 0 ? (
        <Empty title="No statements yet">Statements appear here once a rep's period pays something.</Empty>
      ) : (
        <div class="card table-wrap">
          <table>
            <caption class="visually-hidden">Statements of {board.period_id} and their approvals</caption>
            <thead>
              <tr>
                <th scope="col">Rep</th>
                <th scope="col" class="numeric">
                  Payable
                </th>
                <th scope="col">Approval</th>
                <th scope="col">Waiting on</th>
                <th scope="col">Last reminded (UTC)</th>
                {props.canChange ? (
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {board.statements.map((statement) => (
                <StatementRow
                  key={statement.user_id}
                  statement={statement}
                  showActions={props.canChange}
                  canRemind={props.canChange && board.status === 'open' && statement.waiting_on.length > 0}
                  busy={props.busy}
                  remind={props.remind}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function StatementRow(props: {
  statement: Statement;
  showActions: boolean;
  canRemind: boolean;
  busy: boolean;
  remind: (ids: string[]) => unknown;
}) {
  const { statement } = props;
  const approval = statement.approval;
  const name = statement.display_name
    ? `${statement.display_name} (${statement.user_external_id})`
    : statement.user_external_id;
  const reset = approval.steps.filter((step) => step.difference !== null);
  return (
    <tr data-user-id={statement.user_id}>
      <th scope="row">{name}</th>
      <td class="numeric">
        {statement.currencies.map((each) => (
          <div key={each.currency}>{money(each.payable_cents, each.currency)}</div>
        ))}
      </td>
      <td data-field="approval">
        {approval.state === 'approved' ? (
          <Badge tone="green">Approved</Badge>
        ) : approval.state === 'not_required' ? (
          <span class="muted">Not required</span>
        ) : (
          <Badge tone="amber">
            {approval.state === 'waiting_rep' ? 'Waiting for the rep' : 'Waiting for a manager'}
          </Badge>
        )}
        {approval.steps
          .filter((step) => step.standing && step.approval)
          .map((step) => (
            <div class="muted small" key={step.step}>
              {step.step === 'rep' ? 'Rep' : 'Manager'} approved {shortDateTime(step.approval?.approved_at)}
            </div>
          ))}
        {reset.map((step) => (
          <details key={step.step} class="small">
            <summary>
              {step.step === 'rep' ? "Rep's" : "Manager's"} approval of {shortDateTime(step.approval?.approved_at)}{' '}
              reset: the statement changed
            </summary>
            <ul>
              {step.difference?.rows.map((row) => (
                <li key={row.line}>
                  {row.description}: {describeChange(row.approved_cents, row.now_cents, statement)}
                </li>
              ))}
              {step.difference?.adjustments.map((each) => (
                <li key={each.id}>
                  {each.description}: {describeChange(each.approved_cents, each.now_cents, statement)}
                </li>
              ))}
              {step.difference ? (
                <li>
                  Payable:{' '}
                  {describeChange(step.difference.approved_payable_cents, step.difference.now_payable_cents, statement)}
                </li>
              ) : null}
            </ul>
          </details>
        ))}
      </td>
      <td data-field="waiting-on">
        {statement.waiting_on.length === 0 ? (
          <span class="muted">—</span>
        ) : (
          <>
            <div>{statement.waiting_on.map(personName).join(', ')}</div>
            {statement.waiting_since ? (
              <div class="muted small">since {shortDateTime(statement.waiting_since)}</div>
            ) : null}
          </>
        )}
      </td>
      <td class="nowrap">{statement.last_reminded_at ? shortDateTime(statement.last_reminded_at) : '—'}</td>
      {props.showActions ? (
        <td class="actions">
          {props.canRemind ? (
            <button
              type="button"
              class="button"
              disabled={props.busy}
              aria-label={`Remind ${statement.waiting_on.map(personName).join(', ')} about ${statement.user_external_id}'s statement`}
              onClick={() => void props.remind([statement.user_id])}
            >
              Remind
            </button>
          ) : null}
        </td>
      ) : null}
    </tr>
  );
}

/** An amount's change as read by a person: in the statement's currency when it has one, else in minor units. */
function describeChange(approved: number | null, now: number | null, statement: Statement): string {
  const currency = statement.currencies.length === 1 ? statement.currencies[0]?.currency : undefined;
  const shown = (cents: number) => (currency ? money(cents, currency) : `${cents} (minor units)`);
  if (approved === null && now !== null) return `new, ${shown(now)}`;
  if (now === null && approved !== null) return `gone (was ${shown(approved)})`;
  return `${shown(approved ?? 0)} → ${shown(now ?? 0)}`;
}
