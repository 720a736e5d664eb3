import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../generated/openapi.ts';
import type { PortalToken } from '../../src/http/portal/sessionStatus.ts';

// The portal's only way to /v1: openapi-fetch typed from the public contract, with a rep token as the bearer. The
// token comes from `POST /portal/token` (the portal session's cookie, same origin), minted by the same service
// integrators' backends use, so the portal sees exactly what a rep token may see. It is renewed a minute before it
// expires, and again after any 401 (revoked, or expired while the tab slept).

export type Schemas = components['schemas'];
export type Statement = Schemas['Statement'];
export type StatementPlan = Schemas['StatementPlan'];
export type Earning = Schemas['Earning'];
export type Plan = Schemas['Plan'];
export type Deal = Schemas['Deal'];
export type Estimate = Schemas['Estimate'];
export type User = Schemas['User'];
export type ErrorDocument = Schemas['Error'];

export class SignedOut extends Error {}

const RENEW_BEFORE_MS = 60_000;
let current: { token: string; expiresAt: number } | null = null;
let minting: Promise<string> | null = null;
let onSignedOut: () => void = () => {};

/** Called when the portal session has ended (the token endpoint answers 401). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

async function mint(): Promise<string> {
  const response = await fetch('/portal/token', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  if (response.status === 401) {
    current = null;
    onSignedOut();
    throw new SignedOut('the portal session has ended');
  }
  if (!response.ok) throw new Error(`the server answered ${response.status}`);
  const minted = (await response.json()) as PortalToken;
  current = { token: minted.token, expiresAt: Date.parse(minted.expires_at) };
  return minted.token;
}

/** A rep token valid for at least another minute. */
export async function bearer(): Promise<string> {
  if (current && current.expiresAt - Date.now() > RENEW_BEFORE_MS) return current.token;
  minting ??= mint().finally(() => {
    minting = null;
  });
  return minting;
}

/** Forgets the token (after sign-out, or a 401 that says it no longer works). */
export function forgetToken(): void {
  current = null;
}

const repToken: Middleware = {
  async onRequest({ request }) {
    request.headers.set('Authorization', `Bearer ${await bearer()}`);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) forgetToken();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(repToken);

/** Hands a file the API answered to the browser to save, through an object URL (the call carried the bearer). */
function save(data: unknown, response: Response, error: unknown, fallbackName: string): void {
  if (!response.ok || !(data instanceof Blob)) {
    throw new Error((error as ErrorDocument | undefined)?.reason ?? 'The download failed.');
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(data);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Saves a statement as CSV or PDF, fetched with the rep token like any call. */
export async function downloadStatement(userId: string, periodId: string, format: 'csv' | 'pdf'): Promise<void> {
  const { data, error, response } = await api.GET('/v1/users/{id}/statements/{period_id}', {
    params: { path: { id: userId, period_id: periodId }, query: { format } },
    parseAs: 'blob',
  });
  save(data, response, error, `statement-${periodId}.${format}`);
}

/** Saves a plan's document (its chips, tiers and worked examples) as PDF. */
export async function downloadPlanDocument(planId: string): Promise<void> {
  const { data, error, response } = await api.GET('/v1/plans/{id}/document', {
    params: { path: { id: planId }, query: { format: 'pdf' } },
    parseAs: 'blob',
  });
  save(data, response, error, 'plan.pdf');
}
