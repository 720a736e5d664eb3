import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, test } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationFailure } from '../../sdk/src/index.ts';

// Signatures here are made by the npm package `standardwebhooks`, the scheme's reference implementation,
// so these tests check the SDK against an implementation nobody here wrote.

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const secret = newSecret();
const now = new Date('2026-04-22T10:00:00Z');
const payload = {
  type: 'ping',
  timestamp: '2026-04-22T09:59:58.123Z',
  data: { endpoint_id: 'wh_01kjyxwyg0fbpvdbp5my6tvh6n' },
};
const body = JSON.stringify(payload);

function signedHeaders(options: { secrets?: string[]; at?: Date; id?: string; content?: string } = {}) {
  const id = options.id ?? 'msg_01kpnvms3revwrpbdf7c9gyz1x';
  const at = options.at ?? now;
  const signatures = (options.secrets ?? [secret]).map((key) => new Webhook(key).sign(id, at, options.content ?? body));
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

function refusal(code: WebhookVerificationFailure) {
  return (error: unknown) => error instanceof WebhookVerificationError && error.code === code;
}

describe('verifyWebhook', () => {
  test('a request signed by standardwebhooks verifies and returns the parsed payload', () => {
    assert.deepEqual(verifyWebhook(secret, body, signedHeaders(), { now }), payload);
  });

  test('the body may be bytes and the headers a fetch Headers object or Node headers in any case', () => {
    const headers = signedHeaders();
    assert.deepEqual(verifyWebhook(secret, Buffer.from(body), new Headers(headers), { now }), payload);
    const shouting = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    assert.deepEqual(verifyWebhook(secret, new TextEncoder().encode(body), shouting, { now }), payload);
  });

  test('the secret may be given without its whsec_ prefix', () => {
    assert.deepEqual(verifyWebhook(secret.slice('whsec_'.length), body, signedHeaders(), { now }), payload);
  });

  test('a tampered body is refused', () => {
    const tampered = body.replace('wh_01k', 'wh_01j');
    assert.throws(() => verifyWebhook(secret, tampered, signedHeaders(), { now }), refusal('invalid_signature'));
    assert.throws(() => verifyWebhook(secret, `${body} `, signedHeaders(), { now }), refusal('invalid_signature'));
  });

  test('a tampered id or timestamp is refused, since both are signed', () => {
    const headers = signedHeaders();
    assert.throws(
      () => verifyWebhook(secret, body, { ...headers, 'webhook-id': 'msg_other' }, { now }),
      refusal('invalid_signature'),
    );
    const moved = String(Number(headers['webhook-timestamp']) + 1);
    assert.throws(
      () => verifyWebhook(secret, body, { ...headers, 'webhook-timestamp': moved }, { now }),
      refusal('invalid_signature'),
    );
  });

  test('a signature made with another secret is refused', () => {
    assert.throws(() => verifyWebhook(newSecret(), body, signedHeaders(), { now }), refusal('invalid_signature'));
  });

  test('a timestamp more than 5 minutes old is refused, one within 5 minutes accepted', () => {
    const stale = new Date(now.getTime() - 301_000);
    assert.throws(
      () => verifyWebhook(secret, body, signedHeaders({ at: stale }), { now }),
      refusal('timestamp_too_old'),
    );
    const recent = new Date(now.getTime() - 299_000);
    assert.deepEqual(verifyWebhook(secret, body, signedHeaders({ at: recent }), { now }), payload);
  });

  test('a timestamp more than 5 minutes in the future is refused', () => {
    const future = new Date(now.getTime() + 301_000);
    assert.throws(
      () => verifyWebhook(secret, body, signedHeaders({ at: future }), { now }),
      refusal('timestamp_too_new'),
    );
  });

  test('the tolerance is configurable and the clock defaults to the system clock', () => {
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    assert.ok(verifyWebhook(secret, body, signedHeaders({ at: twoMinutesAgo })));
    assert.throws(
      () => verifyWebhook(secret, body, signedHeaders({ at: twoMinutesAgo }), { toleranceSeconds: 60 }),
      refusal('timestamp_too_old'),
    );
  });

  test('during a secret rotation, a request signed with both secrets verifies with either', () => {
    const oldSecret = secret;
    const rotated = newSecret();
    const headers = signedHeaders({ secrets: [oldSecret, rotated] });
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    assert.deepEqual(verifyWebhook(oldSecret, body, headers, { now }), payload);
    assert.deepEqual(verifyWebhook(rotated, body, headers, { now }), payload);
    assert.deepEqual(verifyWebhook([rotated, oldSecret], body, signedHeaders(), { now }), payload);
    assert.throws(() => verifyWebhook(newSecret(), body, headers, { now }), refusal('invalid_signature'));
  });

  test('signatures of other versions are ignored', () => {
    const headers = signedHeaders();
    const v1 = headers['webhook-signature'].slice('v1,'.length);
    assert.throws(
      () => verifyWebhook(secret, body, { ...headers, 'webhook-signature': `v1a,${v1}` }, { now }),
      refusal('invalid_signature'),
    );
  });

  test('missing headers and a malformed timestamp are refused', () => {
    const headers = signedHeaders();
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _removed, ...rest } = headers;
      assert.throws(() => verifyWebhook(secret, body, rest, { now }), refusal('missing_header'), name);
    }
    assert.throws(
      () => verifyWebhook(secret, body, { ...headers, 'webhook-timestamp': '2026-04-22T10:00:00Z' }, { now }),
      refusal('invalid_timestamp'),
    );
  });

  test('a correctly signed body that is not a webhook payload is refused', () => {
    const content = '["not", "a", "payload"]';
    assert.throws(
      () => verifyWebhook(secret, content, signedHeaders({ content }), { now }),
      refusal('invalid_payload'),
    );
  });

  test('a secret that is not base64 is a programming error, not a refused request', () => {
    assert.throws(() => verifyWebhook('whsec_not base64!', body, signedHeaders(), { now }), TypeError);
    assert.throws(() => verifyWebhook([], body, signedHeaders(), { now }), TypeError);
  });
});
