import { useState } from 'preact/hooks';
import { useLoad } from '../../ui/components.tsx';
import { describeError } from '../../ui/errors.ts';
import { dateTime } from '../../ui/format.ts';
import { Notice } from '../../ui/states.tsx';
import { api, type Schemas } from './api.ts';
import { Money, Section } from './components.tsx';
import { periodLabel } from './periods.ts';

// The statement's approval on My pay (docs/pay-workflow.md): where it stands under the org's policy
// (GET /v1/users/{id}/statements/{period_id}/approvals), what each approval approved, the difference when the
// statement changed since (the approval is then reset), and "Approve statement" for the one whose step waits
// (POST on the same path: the rep for their own, a manager above the rep for a report's). Under policy `none`
// nothing shows.

type Approval = Schemas['StatementApproval'];
type Step = Approval['steps'][number];
type Given = Exclude<Step['approval'], null>;
type Difference = Schemas['ApprovalDifference'];

type Loaded = { approval: Approval } | { hidden: true };

export function ApprovalPanel(props: {
  userId: string;
  periodId: string;
  meId: string;
  externalId: string;
  periodOpen: boolean;
  currency: string;
  /** Changes whenever the statement is read again, so the approval is read again with it. */
  version: unknown;
  onApproved: () => void;
}) {
  const { userId, periodId, meId } = props;
  const isMe = userId === meId;
  const [loaded, reload] = useLoad<Loaded>(async () => {
    const { data, error, response } = await api.GET('/v1/users/{id}/statements/{period_id}/approvals', {
      params: { path: { id: userId, period_id: periodId } },
    });
    // Not this person's to see (or gone): the statement above says so; the panel stays out of the way.
    if (response.status === 404) return { data: { hidden: true } };
    return { data: data === undefined ? undefined : { approval: data }, error };
  }, [userId, periodId, props.version]);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ kind: 'success' | 'error'; text: string } | undefined>();

  if (loaded.state === 'loading') return null;
  if (loaded.state === 'error') {
    return (
      <Section title="Approval">
        <Notice kind="error">The approval could not be read: {loaded.message}</Notice>
        <button type="button" class="button" onClick={() => void reload()}>
          Retry
        </button>
      </Section>
    );
  }
  if ('hidden' in loaded.data || loaded.data.approval.policy === 'none') return null;
  const { approval } = loaded.data;
  const mine: Step['step'] = isMe ? 'rep' : 'manager';
  const canApprove =
    props.periodOpen &&
    ((approval.state === 'waiting_rep' && mine === 'rep') ||
      (approval.state === 'waiting_manager' && mine === 'manager'));

  const approve = async () => {
    setBusy(true);
    setOutcome(undefined);
    try {
      const { data, error } = await api.POST('/v1/users/{id}/statements/{period_id}/approvals', {
        params: { path: { id: userId, period_id: periodId } },
      });
      if (data) {
        setOutcome({
          kind: 'success',
          text: `You approved ${isMe ? 'your' : `${props.externalId}’s`} statement of ${periodLabel(periodId)}.`,
        });
        await reload();
        props.onApproved();
      } else setOutcome({ kind: 'error', text: describeError(error) });
    } catch {
      setOutcome({ kind: 'error', text: 'The server could not be reached. Check your connection and retry.' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Section title="Approval">
      <p class="approval-state" data-state={approval.state}>
        <strong>{headline(approval, mine, isMe, props.periodOpen)}</strong>
      </p>
      <div aria-live="polite">{outcome ? <Notice kind={outcome.kind}>{outcome.text}</Notice> : null}</div>
      {canApprove ? (
        <div class="approval-action">
          <p>
            Approving records this statement exactly as it is now: each line, each adjustment and the total payable,{' '}
            <Money cents={approval.payable_cents} currency={props.currency} />. If it changes later, the approval is
            reset and you are asked again.
          </p>
          <button type="button" class="button button-primary" disabled={busy} onClick={approve}>
            {busy ? 'Approving…' : 'Approve statement'}
          </button>
        </div>
      ) : null}
      <ol class="approval-steps">
        {approval.steps.map((step) => (
          <StepItem
            key={step.step}
            step={step}
            meId={meId}
            isMe={isMe}
            currency={props.currency}
            waiting={waitingStep(approval) === step.step}
          />
        ))}
      </ol>
    </Section>
  );
}

function waitingStep(approval: Approval): Step['step'] | null {
  if (approval.state === 'waiting_rep') return 'rep';
  if (approval.state === 'waiting_manager') return 'manager';
  return null;
}

/** The one sentence that says where the statement stands, from the viewer's side. */
function headline(approval: Approval, mine: Step['step'], isMe: boolean, periodOpen: boolean): string {
  const reset = approval.steps.some((step) => !step.standing && step.difference !== null);
  const waiting = waitingStep(approval);
  if (waiting === null) return 'Approved: nothing is waiting.';
  const because = reset ? ' The statement changed since it was approved, so the approval was reset.' : '';
  const closed = periodOpen ? '' : ' The period is no longer open, so it can no longer be approved here.';
  if (waiting === mine) return `Waiting for you to approve.${because}${closed}`;
  if (waiting === 'manager') return `Waiting for ${isMe ? 'your' : 'a'} manager to approve.${because}${closed}`;
  return `Waiting for the rep to approve.${because}${closed}`;
}

function StepItem(props: { step: Step; meId: string; isMe: boolean; currency: string; waiting: boolean }) {
  const { step, currency } = props;
  const title = step.step === 'rep' ? (props.isMe ? 'Your approval' : 'The rep’s approval') : 'The manager’s approval';
  const given = step.approval;
  const by = given ? approverName(given, props.meId, step.step) : '';
  return (
    <li class="approval-step" data-step={step.step}>
      <h3>{title}</h3>
      {given === null ? (
        <p data-field="step-state">{props.waiting ? 'Waiting.' : 'Not yet: an earlier step waits first.'}</p>
      ) : step.standing ? (
        <p data-field="step-state">
          Approved by {by} on {dateTime(given.approved_at)}.
        </p>
      ) : (
        <p data-field="step-state">
          Reset because the statement changed: approved by {by} on {dateTime(given.approved_at)}, for{' '}
          <Money cents={given.snapshot.payable_cents} currency={currency} />.
        </p>
      )}
      {step.difference ? <DifferenceTable difference={step.difference} currency={currency} /> : null}
      {given ? <Snapshot given={given} currency={currency} /> : null}
    </li>
  );
}

function approverName(given: Given, meId: string, step: Step['step']): string {
  if (given.approver_id === meId) return 'you';
  return step === 'rep' ? 'the rep' : 'a manager';
}

function DifferenceTable(props: { difference: Difference; currency: string }) {
  const { difference, currency } = props;
  const amount = (cents: number | null, gone: string) =>
    cents === null ? <span class="muted">{gone}</span> : <Money cents={cents} currency={currency} />;
  const changes = [
    ...difference.rows.map((row) => ({ key: row.line, ...row })),
    ...difference.adjustments.map((adjustment) => ({ key: adjustment.id, ...adjustment })),
  ];
  return (
    // Focusable, so a keyboard can scroll it should it be wider than a phone.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to scroll by keyboard.
    <section class="table-wrap" aria-label="What changed since it was approved" tabIndex={0}>
      <table class="approval-difference">
        <caption>What changed since it was approved</caption>
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col" class="numeric">
              Approved
            </th>
            <th scope="col" class="numeric">
              Now
            </th>
          </tr>
        </thead>
        <tbody>
          {changes.map((change) => (
            <tr key={change.key}>
              <td class="wrap">{'id' in change ? adjustmentText(change.description) : change.description}</td>
              <td class="numeric">{amount(change.approved_cents, 'not there')}</td>
              <td class="numeric">{amount(change.now_cents, 'gone')}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Payable</th>
            <td class="numeric strong">
              <Money cents={difference.approved_payable_cents} currency={currency} />
            </td>
            <td class="numeric strong">
              <Money cents={difference.now_payable_cents} currency={currency} />
            </td>
          </tr>
        </tfoot>
      </table>
    </section>
  );
}

const CATEGORIES: Record<string, string> = {
  one_off_bonus: 'One-off bonus',
  correction: 'Correction',
  guarantee: 'Guarantee',
  deduction: 'Deduction',
};

/** An adjustment as the API describes it (`correction: Deal paid by hand`), with its category in words. */
function adjustmentText(description: string): string {
  const [, category, reason] = /^([a-z_]+): ([\s\S]*)$/.exec(description) ?? [];
  const label = category === undefined ? undefined : CATEGORIES[category];
  return label === undefined ? description : `${label}: ${reason}`;
}

/** Exactly what the approval approved, folded away (a native disclosure: keyboard and screen readers know it). */
function Snapshot(props: { given: Given; currency: string }) {
  const { snapshot } = props.given;
  return (
    <details class="approval-snapshot">
      <summary>What was approved</summary>
      <ul class="plain-list">
        {snapshot.rows.map((row) => (
          <li key={row.line}>
            {row.description}: <Money cents={row.amount_cents} currency={props.currency} />
          </li>
        ))}
        {snapshot.adjustments.map((adjustment) => (
          <li key={adjustment.id}>
            {adjustmentText(adjustment.description)}:{' '}
            <Money cents={adjustment.amount_cents} currency={props.currency} />
          </li>
        ))}
        <li class="strong">
          Payable: <Money cents={snapshot.payable_cents} currency={props.currency} />
        </li>
      </ul>
    </details>
  );
}
