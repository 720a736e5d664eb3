import { hash } from 'node:crypto';

// Secrets Quotient hands out (API keys, rep tokens, console and portal sessions, sign-in links and SSO states) are
// stored only as this digest: a table read never yields a usable secret, and a lookup compares digests.

/** The SHA-256 of the token's UTF-8 bytes, in hex. Every request digests its key: the one-shot `hash` builds no Hash object. */
export function tokenDigest(token: string): string {
  return hash('sha256', token, 'hex');
}
