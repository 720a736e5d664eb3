import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'vitest';
import { MissingSecretKey, secretBox, secretKeySource } from '../../src/lib/secretBox.ts';

const KEY = Buffer.alloc(32, 1);

describe('sealed secrets', () => {
  test('a sealed secret opens with the same key and binding, and its text is not in the sealed form', () => {
    const box = secretBox(() => KEY);
    const sealed = box.seal('client-secret-value', 'identity_provider:org_a:okta');
    assert.doesNotMatch(sealed, /client-secret-value/);
    assert.equal(box.open(sealed, 'identity_provider:org_a:okta'), 'client-secret-value');
    assert.notEqual(box.seal('client-secret-value', 'identity_provider:org_a:okta'), sealed);
  });

  test('it does not open bound to something else, under another key, or altered', () => {
    const sealed = secretBox(() => KEY).seal('client-secret-value', 'identity_provider:org_a:okta');
    assert.throws(() => secretBox(() => KEY).open(sealed, 'identity_provider:org_b:okta'));
    assert.throws(() => secretBox(() => Buffer.alloc(32, 2)).open(sealed, 'identity_provider:org_a:okta'));
    const [version, iv, tag, text] = sealed.split('.') as [string, string, string, string];
    const altered = [version, iv, tag, `${text.slice(0, -2)}AA`].join('.');
    assert.throws(() => secretBox(() => KEY).open(altered, 'identity_provider:org_a:okta'));
  });

  test('without QUOTIENT_SECRET_KEY an embedded installation keeps one key file, its owner’s only; an external database has none', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'quotient-secret-key-'));
    try {
      const first = secretKeySource({ key: undefined, embeddedDataDir: dataDir })();
      const second = secretKeySource({ key: undefined, embeddedDataDir: dataDir })();
      assert.equal(first.length, 32);
      assert.deepEqual(second, first);
      assert.equal(statSync(join(dataDir, 'secret.key')).mode & 0o777, 0o600);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    assert.throws(() => secretKeySource({ key: undefined, embeddedDataDir: undefined })(), MissingSecretKey);
    assert.deepEqual(secretKeySource({ key: KEY, embeddedDataDir: undefined })(), KEY);
  });
});
