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
