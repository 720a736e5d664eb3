import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks signatures: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed
// with the base64-decoded part of a `whsec_<base64>` secret.

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes (the HMAC-SHA256 key length), base64, behind `whsec_`. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export function signWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const digest = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${digest}`;
}

/**
 * The `webhook-signature` header: one signature per secret, space-separated, as the scheme allows, so that a
 * receiver holding either secret accepts the request while a secret is rotated.
 */
export function signatureHeader(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string) {
  return secrets.map((secret) => signWebhook(secret, messageId, timestampSeconds, body)).join(' ');
}
