import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { Badge, Dialog, Field, type Loaded, Show, ShowList, useLoad } from '../../ui/components.tsx';
import { Empty, ErrorState, Loading, Notice } from '../../ui/states.tsx';

export { Badge, Dialog, Empty, ErrorState, Field, type Loaded, Loading, Notice, Show, ShowList, useLoad };

export function PageHeader(props: { title: string; description: string; actions?: ComponentChildren }) {
  return (
    <header class="page-header">
      <div>
        <h1>{props.title}</h1>
        <p class="muted">{props.description}</p>
      </div>
      {props.actions ? <div class="page-actions">{props.actions}</div> : null}
    </header>
  );
}

/** What became of an action the page ran, told once above the page until the next one. */
export type Outcome = { kind: 'error' | 'success'; text: string };

export function OutcomeNotice(props: { outcome: Outcome | undefined }) {
  return props.outcome ? <Notice kind={props.outcome.kind}>{props.outcome.text}</Notice> : null;
}

export function CopyButton(props: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="button"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(props.value);
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        } catch {
          setCopied(false);
        }
      }}
    >
      {copied ? 'Copied' : props.label}
    </button>
  );
}

/**
 * Asks before an action that cannot be undone. Open while there is a `subject` (what the action is on); Cancel or
 * Escape closes it, and the action button closes it and then runs `onConfirm`. The last subject stays shown while
 * the dialog closes.
 */
export function ConfirmDialog<T>(props: {
  subject: T | undefined;
  title: (subject: T) => string;
  action: (subject: T) => string;
  tone: 'primary' | 'danger';
  /** The action waits for something the dialog asks for (a reason). */
  disabled?: (subject: T) => boolean;
  onClose: () => void;
  onConfirm: (subject: T) => unknown;
  children: (subject: T) => ComponentChildren;
}) {
  const shown = useRef<T | undefined>(undefined);
  if (props.subject !== undefined) shown.current = props.subject;
  const subject = shown.current;
  if (subject === undefined) return null;
  return (
    <Dialog
      open={props.subject !== undefined}
      title={props.title(subject)}
      onClose={props.onClose}
      footer={
        <>
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button
            type="button"
            class={`button button-${props.tone}`}
            disabled={props.disabled?.(subject) ?? false}
            onClick={() => {
              props.onClose();
              void props.onConfirm(subject);
            }}
          >
            {props.action(subject)}
          </button>
        </>
      }
    >
      {props.children(subject)}
    </Dialog>
  );
}
