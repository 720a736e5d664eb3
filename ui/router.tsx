import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

// Pages live at <base>/<page>; the server answers index.html for each, and this keeps the address in step. One
// router per app (the console at /admin, the rep portal at /portal), made by `pathRouter`.

export interface PathRouter {
  currentPath(): string;
  navigate(path: string, options?: { replace?: boolean }): void;
  usePath(): string;
  Link(props: { href: string; class?: string; children: ComponentChildren; current?: boolean }): preact.JSX.Element;
}

export function pathRouter(base: string): PathRouter {
  const listeners = new Set<() => void>();

  function currentPath(): string {
    const path = window.location.pathname.startsWith(base) ? window.location.pathname.slice(base.length) : '/';
    return path === '' ? '/' : path;
  }

  function navigate(path: string, options: { replace?: boolean } = {}): void {
    const url = `${base}${path}`;
    if (options.replace) window.history.replaceState(null, '', url);
    else window.history.pushState(null, '', url);
    for (const listener of listeners) listener();
  }

  function usePath(): string {
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

  function Link(props: { href: string; class?: string; children: ComponentChildren; current?: boolean }) {
    return (
      <a
        href={`${base}${props.href}`}
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

  return { currentPath, navigate, usePath, Link };
}
