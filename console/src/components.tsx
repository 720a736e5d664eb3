import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { type ApiError, describeError } from './api.ts';

export type Loaded<T> = { state: 'loading' } | { state: 'error'; message: string } | { state: 'ready'; data: T };

/** Loads on mount and when `deps` change; `reload` loads again, keeping what is shown until the answer. */
export function useLoad<T>(
  load: () => Promise<{ data?: T; error?: ApiError }>,
  deps: unknown[],
): [Loaded<T>, () => Promise<void>] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const reload = useCallback(async () => {
    try {
      const { data, error } = await load();
      setLoaded(data === undefined ? { state: 'error', message: describeError(error) } : { state: 'ready', data });
    } catch {
      setLoaded({ state: 'error', message: 'The server could not be reached. Check your connection and retry.' });
    }
  }, deps);
  useEffect(() => {
    setLoaded({ state: 'loading' });
    void reload();
  }, [reload]);
  return [loaded, reload];
}

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

export function Loading(props: { label?: string }) {
  return (
    <div class="state" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {props.label ?? 'Loading…'}
    </div>
  );
}

export function ErrorState(props: { message: string; retry?: () => void }) {
  return (
    <div class="state state-error" role="alert">
      <strong>Could not load this page.</strong>
      <span>{props.message}</span>
      {props.retry ? (
        <button type="button" class="button" onClick={props.retry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

export function Empty(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="state state-empty">
      <strong>{props.title}</strong>
      {props.children ? <span>{props.children}</span> : null}
    </div>
  );
}

/** Shows the loading and error states, and the page body once the data is there. */
export function Show<T>(props: { loaded: Loaded<T>; retry: () => void; children: (data: T) => ComponentChildren }) {
  if (props.loaded.state === 'loading') return <Loading />;
  if (props.loaded.state === 'error') return <ErrorState message={props.loaded.message} retry={props.retry} />;
  return <>{props.children(props.loaded.data)}</>;
}

export function Notice(props: { kind: 'error' | 'success' | 'info'; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}

export function Badge(props: { tone: 'green' | 'grey' | 'amber' | 'red' | 'blue'; children: ComponentChildren }) {
  return <span class={`badge badge-${props.tone}`}>{props.children}</span>;
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

/** A modal dialog (the native <dialog>: focus moves in, Escape closes, focus returns). */
export function Dialog(props: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  footer: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={titleId} onClose={props.onClose}>
      <h2 id={titleId}>{props.title}</h2>
      <div class="dialog-body">{props.children}</div>
      <div class="dialog-footer">{props.footer}</div>
    </dialog>
  );
}

export function Field(props: { label: string; hint?: string; id: string; children: JSX.Element }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint ? (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}
