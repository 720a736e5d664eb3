/** How long a browser session lives: the rule shared by console sessions and rep portal sessions. */
export interface SessionSettings {
  /** A session unused this long ends. */
  idleMs: number;
  /** A session ends this long after sign-in, however busy. */
  absoluteMs: number;
}

interface SessionTimes {
  last_seen_at: Date;
  expires_at: Date;
}

/** When the session ends if it is not used again: its idle end, or its absolute expiry when that comes first. */
export function sessionEnd(session: SessionTimes, settings: SessionSettings): Date {
  const idleEnd = new Date(session.last_seen_at.getTime() + settings.idleMs);
  return idleEnd < session.expires_at ? idleEnd : session.expires_at;
}

/** A session is over at its idle end or its absolute expiry, whichever comes first. */
export function sessionIsOver(session: SessionTimes, settings: SessionSettings, at: Date): boolean {
  return at.getTime() >= sessionEnd(session, settings).getTime();
}
