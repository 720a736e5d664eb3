import { useId, useState } from 'preact/hooks';
import { decimalsOf } from '../../src/domain/currencies.ts';
import { Dialog, Field } from '../../ui/components.tsx';
import { describeError } from '../../ui/errors.ts';
import { Notice } from '../../ui/states.tsx';
import { api, type Schemas } from './api.ts';
import { navigate } from './router.ts';

// "Question this line" and "Report a missing deal": a small form in a dialog that opens an inquiry
// (POST /v1/inquiries) about an earning, or about the rep's statement of a period, then shows it.

export type InquiryType = Schemas['InquiryType'];

export const INQUIRY_TYPES: Array<[InquiryType, string]> = [
  ['missing_deal', 'Missing deal'],
  ['wrong_amount', 'Wrong amount'],
  ['wrong_credit', 'Wrong credit'],
  ['wrong_plan', 'Wrong plan'],
  ['other', 'Other'],
];

export function typeLabel(type: InquiryType): string {
  return INQUIRY_TYPES.find(([value]) => value === type)?.[1] ?? type;
}

/** `1,200.50` in USD → 120050; undefined when blank; null when it is not an amount in the currency's decimals. */
export function parseAmount(text: string, currency: string): number | undefined | null {
  const trimmed = text.trim().replace(/,/g, '');
  if (trimmed === '') return undefined;
  const decimals = decimalsOf(currency);
  const pattern = decimals === 0 ? /^-?\d+$/ : new RegExp(`^-?\\d+(\\.\\d{1,${decimals}})?$`);
  if (!pattern.test(trimmed)) return null;
  const [whole = '0', fraction = ''] = trimmed.replace('-', '').split('.');
  const minor = Number(whole) * 10 ** decimals + Number(fraction.padEnd(decimals, '0') || '0');
  if (!Number.isSafeInteger(minor)) return null;
  return trimmed.startsWith('-') ? -minor : minor;
}

export type InquirySubject =
  | { kind: 'earning'; earning_id: string; label: string }
  | { kind: 'statement'; period_id: string; user_id: string; label: string };

export function QuestionButton(props: {
  subject: InquirySubject;
  currency: string;
  text: string;
  hiddenText?: string;
  defaultType: InquiryType;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" class="button button-quiet" onClick={() => setOpen(true)}>
        {props.text}
        {props.hiddenText ? <span class="visually-hidden"> ({props.hiddenText})</span> : null}
      </button>
      {open ? (
        <QuestionDialog
          subject={props.subject}
          currency={props.currency}
          defaultType={props.defaultType}
          onClose={() => setOpen(false)}
        />
      ) : null}
    </>
  );
}

function QuestionDialog(props: {
  subject: InquirySubject;
  currency: string;
  defaultType: InquiryType;
  onClose: () => void;
}) {
  const { subject, currency } = props;
  const formId = useId();
  const typeField = useId();
  const amountField = useId();
  const messageField = useId();
  const [type, setType] = useState<InquiryType>(props.defaultType);
  const [amount, setAmount] = useState('');
  const [message, setMessage] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [sending, setSending] = useState(false);
  const decimals = decimalsOf(currency);
  const expected = parseAmount(amount, currency);

  const submit = async () => {
    setError(undefined);
    if (expected === null) {
      setError(`Enter the expected amount in ${currency}, with at most ${decimals} decimals, or leave it blank.`);
      return;
    }
    if (message.trim() === '') {
      setError('Say what looks wrong in the message.');
      return;
    }
    setSending(true);
    try {
      const { data, error: failure } = await api.POST('/v1/inquiries', {
        body: {
          subject:
            subject.kind === 'earning'
              ? { kind: 'earning', earning_id: subject.earning_id }
              : { kind: 'statement', period_id: subject.period_id },
          ...(subject.kind === 'statement' ? { user_id: subject.user_id } : {}),
          type,
          ...(expected === undefined ? {} : { expected_amount: { amount_cents: expected, currency } }),
          message: message.trim(),
        },
      });
      if (!data) {
        setError(describeError(failure));
        return;
      }
      props.onClose();
      navigate(`/inquiries/${data.id}`);
    } catch {
      setError('The server could not be reached. Check your connection and retry.');
    } finally {
      setSending(false);
    }
  };

  return (
    <Dialog
      open
      title={subject.kind === 'earning' ? 'Question this line' : 'Report a missing deal'}
      onClose={props.onClose}
      footer={
        <>
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" form={formId} class="button button-primary" disabled={sending}>
            {sending ? 'Sending…' : 'Send question'}
          </button>
        </>
      }
    >
      <form
        id={formId}
        class="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <p class="muted">{subject.label}</p>
        {error ? (
          <div role="alert">
            <Notice kind="error">{error}</Notice>
          </div>
        ) : null}
        <Field label="What is wrong" id={typeField}>
          <select id={typeField} value={type} onChange={(event) => setType(event.currentTarget.value as InquiryType)}>
            {INQUIRY_TYPES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label={`Expected amount (${currency}, optional)`}
          id={amountField}
          hint={decimals === 0 ? 'A whole number.' : `For example 1200.${'0'.repeat(decimals)}.`}
        >
          <input
            id={amountField}
            inputMode="decimal"
            autoComplete="off"
            value={amount}
            aria-invalid={expected === null ? 'true' : undefined}
            aria-describedby={`${amountField}-hint`}
            onInput={(event) => setAmount(event.currentTarget.value)}
          />
        </Field>
        <Field label="Message" id={messageField}>
          <textarea
            id={messageField}
            rows={4}
            maxLength={4000}
            required
            value={message}
            onInput={(event) => setMessage(event.currentTarget.value)}
          />
        </Field>
      </form>
    </Dialog>
  );
}
