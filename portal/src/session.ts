import type { PortalSessionStatus } from '../../src/http/portal/sessionStatus.ts';

// The portal's calls for its session: who is signed in, and sign-out. The session cookie travels by itself (same
// origin, HttpOnly).

export type { PortalSessionStatus };
export type SignedIn = Extract<PortalSessionStatus, { signed_in: true }>;

export async function fetchSession(): Promise<PortalSessionStatus> {
  const response = await fetch('/portal/session', {
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`the server answered ${response.status}`);
  return (await response.json()) as PortalSessionStatus;
}

export async function signOut(): Promise<void> {
  const response = await fetch('/portal/sign-out', { method: 'POST', credentials: 'same-origin' });
  if (!response.ok) throw new Error(`the server answered ${response.status}`);
}

/** The sign-in address for the org and provider the portal was opened with (`/portal/?org=…&provider=…`). */
export function signInHref(search: string): string | null {
  const params = new URLSearchParams(search);
  const org = params.get('org');
  const provider = params.get('provider');
  if (!org || !provider) return null;
  return `/portal/sign-in?${new URLSearchParams({ org, provider })}`;
}
