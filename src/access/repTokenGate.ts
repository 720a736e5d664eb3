import { repHierarchyOf, reportsOn } from '../domain/earnings/hierarchy.ts';
import type { Viewer } from '../domain/viewer.ts';
import * as repTokens from '../repositories/repTokens.ts';
import type { Transaction } from '../repositories/transaction.ts';
import { tokenDigest } from './tokenDigest.ts';

/** A live rep token as a request sees it: its rep, their org's settings and the rep's window count. */
export interface LiveRepToken {
  kind: 'live';
  viewer: Extract<Viewer, { kind: 'rep' }>;
  orgName: string;
  rep: { id: string; external_id: string; display_name: string | null };
  expiresAt: Date;
  corsAllowedOrigins: readonly string[];
  rateLimitPerMinute: number;
  windowCount: number;
}

/** What a bearer token of the rep-token form turned out to be. Revoked and expired ones say their org's origins. */
export type RepTokenCheck =
  | LiveRepToken
  | { kind: 'unknown' }
  | { kind: 'revoked' | 'expired'; corsAllowedOrigins: readonly string[] };

/**
 * Finds the rep token of a raw bearer token (revoked and expired ones too, to say why they are refused), counts a
 * live one in its rep's window and works out who the rep may see today: one round trip on the access pool.
 */
export async function checkRepToken(
  tx: Transaction,
  raw: string,
  windowStart: Date,
  now: Date,
): Promise<RepTokenCheck> {
  const found = await repTokens.authenticateAndCount(tx, tokenDigest(raw), windowStart, now);
  if (!found) return { kind: 'unknown' };
  const { token } = found;
  const corsAllowedOrigins = token.cors_allowed_origins ?? [];
  if (token.revoked_at !== null) return { kind: 'revoked', corsAllowedOrigins };
  if (token.expires_at.getTime() <= now.getTime() || token.window_count === null) {
    return { kind: 'expired', corsAllowedOrigins };
  }
  // The hierarchy is kept by user id here: reportsOn only compares names.
  const hierarchy = repHierarchyOf(
    found.hierarchy.map((entry) => ({
      rep_external_id: entry.rep_user_id,
      manager_external_id: entry.manager_user_id,
      from: entry.from,
    })),
  );
  const reports = reportsOn(hierarchy, token.user_id, now.toISOString().slice(0, 10));
  return {
    kind: 'live',
    viewer: {
      kind: 'rep',
      orgId: token.org_id,
      userId: token.user_id,
      tokenId: token.id,
      visibleUserIds: [token.user_id, ...[...reports].sort()],
    },
    orgName: token.org_name,
    rep: { id: token.user_id, external_id: token.external_id, display_name: token.display_name },
    expiresAt: token.expires_at,
    corsAllowedOrigins,
    rateLimitPerMinute: token.rep_rate_limit_per_minute,
    windowCount: token.window_count,
  };
}
