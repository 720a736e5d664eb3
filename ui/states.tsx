import type { ComponentChildren } from 'preact';

// The states every page of the console and the rep portal shows while its data is on the way, when it failed and
// when there is none: one set of components, styled by the console's stylesheet (.state, .spinner), which both apps
// load.

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

export function Notice(props: { kind: 'error' | 'success' | 'info'; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}
