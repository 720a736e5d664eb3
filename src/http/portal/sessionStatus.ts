// What `GET /portal/session` answers: the portal's first call. It imports nothing, so the portal's front-end
// (portal/src/session.ts) reads this one definition without compiling the server.

export type PortalSessionStatus =
  | { signed_in: false }
  | {
      signed_in: true;
      rep: { id: string; external_id: string; display_name: string | null };
      org: { id: string; name: string };
      session: { expires_at: string; idle_expires_at: string };
    };

/**
 * What `POST /portal/token` answers: a rep token for the signed-in rep (docs/rep-tokens.md), for the portal's pages to
 * call /v1 with. `401 {error: 'unauthenticated'}` when no portal session is signed in.
 */
export interface PortalToken {
  id: string;
  token: string;
  user_id: string;
  expires_at: string;
}
