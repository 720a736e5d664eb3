import { randomBytes } from 'node:crypto';
import { tokenDigest } from './tokenDigest.ts';

// API keys: "qtn_" + 64 lowercase hex characters (32 random bytes). Only the SHA-256 digest is stored; a
// short display prefix lets people tell keys apart.

export const KEY_PREFIX = 'qtn';
export const SCOPES = [
  'deals:read',
  'deals:write',
  'earnings:read',
  'plans:read',
  'rep_tokens:write',
  'inquiries:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export const RATE_LIMIT_MIN = 1;
export const RATE_LIMIT_MAX = 100_000;
export const RATE_LIMIT_DEFAULT = 1000;

export interface GeneratedKey {
  raw: string;
  digest: string;
  displayPrefix: string;
}

export function generateApiKey(): GeneratedKey {
  const raw = `${KEY_PREFIX}_${randomBytes(32).toString('hex')}`;
  return { raw, digest: tokenDigest(raw), displayPrefix: raw.slice(0, KEY_PREFIX.length + 1 + 8) };
}

/**
 * The token of an `Authorization: Bearer <token>` header, or null when the header is missing or not of
 * that form. Any non-empty token is returned: whether it is a key is the database's answer (invalid_key).
 */
export function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1] ?? null;
}

export function parseScopes(input: string): { scopes: Scope[] } | { error: string } {
  const names = input
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) return { error: `give at least one scope: ${SCOPES.join(', ')}` };
  const unknown = names.filter((name) => !(SCOPES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    return {
      error: `unknown scope ${unknown.map((name) => `"${name}"`).join(', ')}; known scopes: ${SCOPES.join(', ')}`,
    };
  }
  return { scopes: [...new Set(names as Scope[])] };
}

export function parseRateLimit(input: string | undefined): { limit: number } | { error: string } {
  if (input === undefined) return { limit: RATE_LIMIT_DEFAULT };
  const limit = Number(input);
  if (!/^\d+$/.test(input.trim()) || !Number.isSafeInteger(limit) || limit < RATE_LIMIT_MIN || limit > RATE_LIMIT_MAX) {
    return {
      error: `the rate limit must be a whole number of requests per minute from ${RATE_LIMIT_MIN} to ${RATE_LIMIT_MAX}`,
    };
  }
  return { limit };
}
