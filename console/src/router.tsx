import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

// Pages live at /admin/<page>; the server answers index.html for each, and this keeps the address in step.

const BASE = '/admin';
const listeners = new Set<() => void>();

export function currentPath(): string {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '/';
  return path === '' ? '/' : path;
}

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = `${BASE}${path}`;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const listener of listeners) listener();
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

export function Link(props: { href: string; class?: string; children: ComponentChildren; current?: boolean }) {
  return (
    <a
      href={`${BASE}${props.href}`}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}
