import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { describe, test } from 'vitest';
import { verifyWebhook } from '../../sdk/src/index.ts';
import { generateWebhookSecret, signatureHeader } from '../../src/domain/webhooks/signature.ts';

// Our signatures checked by the npm package `standardwebhooks` (the scheme's reference implementation) and by
// the SDK's verifyWebhook, so that both ends agree with an implementation nobody here wrote.

const id = 'msg_01kpnvms3revwrpbdf7c9gyz1x';
const at = new Date();
const seconds = Math.floor(at.getTime() / 1000);
const body = JSON.stringify({
  type: 'ping',
  timestamp: at.toISOString(),
  data: { endpoint_id: 'wh_01kjyxwyg0fbpvdbp5my6tvh6n' },
});

function headers(signature: string) {
  return { 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': signature };
}

describe('webhook signatures', () => {
  test('a secret is whsec_ and 32 random bytes in base64, different every time', () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
    assert.notEqual(generateWebhookSecret(), secret);
  });

  test('the signature is the one standardwebhooks computes, and both verifiers accept it', () => {
    const secret = generateWebhookSecret();
    const signature = signatureHeader([secret], id, seconds, body);
    assert.equal(signature, new Webhook(secret).sign(id, at, body));
    assert.deepEqual(new Webhook(secret).verify(body, headers(signature)), JSON.parse(body));
    assert.deepEqual(verifyWebhook(secret, body, headers(signature)), JSON.parse(body));
  });

  test('with two secrets (a rotation), either secret alone verifies the header', () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const signature = signatureHeader([current, previous], id, seconds, body);
    assert.equal(signature.split(' ').length, 2);
    for (const secret of [current, previous]) {
      assert.deepEqual(new Webhook(secret).verify(body, headers(signature)), JSON.parse(body));
      assert.deepEqual(verifyWebhook(secret, body, headers(signature)), JSON.parse(body));
    }
    assert.throws(() => new Webhook(generateWebhookSecret()).verify(body, headers(signature)));
  });

  test('a body changed by one character no longer verifies', () => {
    const secret = generateWebhookSecret();
    const signature = signatureHeader([secret], id, seconds, body);
    assert.throws(() => new Webhook(secret).verify(body.replace('ping', 'pong'), headers(signature)));
  });
});
