import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './types.ts';

/** Why a webhook request was refused. */
export type WebhookVerificationFailure =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'invalid_signature'
  | 'invalid_payload';

/** The request is not a genuine, fresh Quotient webhook: answer it with 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name: string = 'WebhookVerificationError';
  readonly code: WebhookVerificationFailure;

  constructor(code: WebhookVerificationFailure, message: string) {
    super(message);
    this.code = code;
  }
}

/** The request headers: a fetch `Headers`, or Node's `request.headers` (any letter case). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time (a Date, or milliseconds since the epoch); default the system clock. */
  now?: Date | number;
}

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Verifies a webhook request by the Standard Webhooks scheme and returns its parsed payload
 * `{ type, timestamp, data }`. The signature is HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`
 * with the endpoint's secret (`whsec_<base64>`); `webhook-signature` holds one or more space-separated
 * `v1,<base64>` signatures, and one matching any of `secrets` is enough, so pass the old and the new
 * secret while one is rotated. Signatures are compared in constant time. A timestamp more than
 * `toleranceSeconds` away from now is refused, so that a captured request cannot be replayed later.
 *
 * Pass the body exactly as received (string or bytes), before any JSON parsing: re-serialised JSON does
 * not match the signature. Deliveries are at least once: deduplicate on the `webhook-id` header.
 *
 * @throws WebhookVerificationError when the request must be refused.
 * @throws TypeError when a secret is not `whsec_` followed by base64.
 */
export function verifyWebhook(
  secretOrSecrets: string | readonly string[],
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const keys = (typeof secretOrSecrets === 'string' ? [secretOrSecrets] : secretOrSecrets).map(signingKey);
  if (keys.length === 0) throw new TypeError('verifyWebhook needs at least one secret');
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new RangeError(`toleranceSeconds must be a number ≥ 0, got ${toleranceSeconds}`);
  }

  const id = requiredHeader(headers, 'webhook-id');
  const timestamp = requiredHeader(headers, 'webhook-timestamp');
  const signatures = requiredHeader(headers, 'webhook-signature');

  if (!/^\d{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not a Unix time in seconds');
  }
  const nowSeconds = Math.floor(Number(options.now ?? Date.now()) / 1000);
  const age = nowSeconds - Number(timestamp);
  if (age > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_too_old', `webhook-timestamp is ${age} s old`);
  }
  if (-age > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_too_new', `webhook-timestamp is ${-age} s in the future`);
  }

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  const expected = keys.map((key) => createHmac('sha256', key).update(signed).digest());
  const candidates = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  const matches = candidates.some((candidate) =>
    expected.some((digest) => candidate.length === digest.length && timingSafeEqual(candidate, digest)),
  );
  if (!matches) throw new WebhookVerificationError('invalid_signature', 'no webhook-signature matches the secret');

  return parsePayload(body);
}

function signingKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded === '' || !BASE64.test(encoded)) {
    throw new TypeError('a webhook secret must be "whsec_" followed by base64, as `quotient webhooks add` prints it');
  }
  return Buffer.from(encoded, 'base64');
}

function requiredHeader(headers: WebhookHeaders, name: string): string {
  const value = readHeader(headers, name);
  if (value === undefined || value.trim() === '') {
    throw new WebhookVerificationError('missing_header', `the ${name} header is missing`);
  }
  return value.trim();
}

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(' ');
  }
  return undefined;
}

function parsePayload(body: Buffer): WebhookEvent {
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the body is not JSON');
  }
  if (typeof payload !== 'object' || payload === null || typeof (payload as { type?: unknown }).type !== 'string') {
    throw new WebhookVerificationError('invalid_payload', 'the body is not a webhook payload {type, timestamp, data}');
  }
  return payload as WebhookEvent;
}
