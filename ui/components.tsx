import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { describeError, type ErrorDocument } from './errors.ts';
import { ErrorState, Loading } from './states.tsx';

// Components the console and the rep portal share: loading what a page shows, its states, badges, dialogs, fields.

export type Loaded<T> = { state: 'loading' } | { state: 'error'; message: string } | { state: 'ready'; data: T };

type Answer<T> = Promise<{ data?: T; error?: ErrorDocument }>;

const UNREACHABLE = 'The server could not be reached. Check your connection and retry.';

/**
 * Loads on mount and when `deps` change. `reload` loads again, keeping what is shown until the answer; `loadMore`
 * folds a further answer (a list's next page) into what is shown. Either failing shows the error state. An answer
 * that a newer load has overtaken is dropped.
 */
export function useLoad<T>(
  load: () => Answer<T>,
  deps: unknown[],
): [Loaded<T>, () => Promise<void>, (more: () => Answer<T>, fold: (shown: T, more: T) => T) => Promise<void>] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const latest = useRef(0);
  const settle = useCallback(async (answer: () => Answer<T>, show: (data: T) => void) => {
    const ticket = ++latest.current;
    let outcome: Loaded<T>;
    try {
      const { data, error } = await answer();
      outcome = data === undefined ? { state: 'error', message: describeError(error) } : { state: 'ready', data };
    } catch {
      outcome = { state: 'error', message: UNREACHABLE };
    }
    if (ticket !== latest.current) return;
    if (outcome.state === 'ready') show(outcome.data);
    else setLoaded(outcome);
  }, []);
  const reload = useCallback(() => settle(load, (data) => setLoaded({ state: 'ready', data })), deps);
  const loadMore = useCallback(
    (more: () => Answer<T>, fold: (shown: T, more: T) => T) =>
      settle(more, (data) =>
        setLoaded((shown) => (shown.state === 'ready' ? { state: 'ready', data: fold(shown.data, data) } : shown)),
      ),
    [],
  );
  useEffect(() => {
    setLoaded({ state: 'loading' });
    void reload();
  }, [reload]);
  return [loaded, reload, loadMore];
}

/** Shows the loading and error states, and the page body once the data is there. */
export function Show<T>(props: { loaded: Loaded<T>; retry: () => void; children: (data: T) => ComponentChildren }) {
  if (props.loaded.state === 'loading') return <Loading />;
  if (props.loaded.state === 'error') return <ErrorState message={props.loaded.message} retry={props.retry} />;
  return <>{props.children(props.loaded.data)}</>;
}

/** `Show` for a list: `empty` when the data's `items` are none, else the list. */
export function ShowList<T, Item>(props: {
  loaded: Loaded<T>;
  retry: () => void;
  items: (data: T) => readonly Item[];
  empty: ComponentChildren;
  children: (items: readonly Item[], data: T) => ComponentChildren;
}) {
  return (
    <Show loaded={props.loaded} retry={props.retry}>
      {(data) => {
        const items = props.items(data);
        return items.length === 0 ? props.empty : props.children(items, data);
      }}
    </Show>
  );
}

export function Badge(props: { tone: 'green' | 'grey' | 'amber' | 'red' | 'blue'; children: ComponentChildren }) {
  return <span class={`badge badge-${props.tone}`}>{props.children}</span>;
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
