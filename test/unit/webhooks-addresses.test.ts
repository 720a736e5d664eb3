import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { checkEndpointUrl, forbiddenAddressReason } from '../../src/domain/webhooks/addresses.ts';

describe('forbiddenAddressReason', () => {
  const refused: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', '"this network"'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique local'],
    ['fc00::1', 'unique local'],
    ['ff02::1', 'multicast'],
  ];
  test.each(refused)('%s is refused as %s', (address, reason) => {
    assert.equal(forbiddenAddressReason(address), reason);
  });

  test('IPv6 forms that carry an IPv4 address are judged by that address', () => {
    assert.equal(forbiddenAddressReason('::ffff:127.0.0.1'), 'loopback');
    assert.equal(forbiddenAddressReason('::ffff:7f00:1'), 'loopback');
    assert.equal(forbiddenAddressReason('::ffff:169.254.169.254'), 'link-local (cloud metadata)');
    assert.equal(forbiddenAddressReason('64:ff9b::10.0.0.1'), 'private');
    assert.equal(forbiddenAddressReason('2002:c0a8:0101::1'), 'private');
    assert.equal(forbiddenAddressReason('::10.0.0.1'), 'private');
    assert.equal(forbiddenAddressReason('::ffff:8.8.8.8'), null);
  });

  test('public addresses pass', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111']) {
      assert.equal(forbiddenAddressReason(address), null, address);
    }
  });
});

describe('checkEndpointUrl', () => {
  const strict = { allowPrivate: false };

  test('an https URL on a public name passes, normalised', () => {
    assert.deepEqual(checkEndpointUrl('https://Hooks.Example.com/quotient', strict), {
      url: 'https://hooks.example.com/quotient',
    });
  });

  test('when the scheme is not https, then the URL is refused, naming the setting for local development', () => {
    const checked = checkEndpointUrl('http://hooks.example.com/x', strict);
    assert.ok('error' in checked);
    assert.match(checked.error, /must use https, got http .*QUOTIENT_WEBHOOKS_ALLOW_PRIVATE=true/);
    assert.ok('error' in checkEndpointUrl('ftp://hooks.example.com/x', { allowPrivate: true }));
  });

  test('when the host is a literal private, loopback or link-local address in any notation, then it is refused', () => {
    for (const url of [
      'https://127.0.0.1/x',
      'https://2130706433/x',
      'https://0x7f.0.0.1/x',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.8:8443/x',
      'https://localhost/x',
      'https://api.localhost./x',
    ]) {
      const checked = checkEndpointUrl(url, strict);
      assert.ok('error' in checked, url);
      assert.match(checked.error, /address: webhooks go to public addresses only/, url);
    }
  });

  test('with private addresses allowed, http://127.0.0.1 passes (tests and local development)', () => {
    assert.deepEqual(checkEndpointUrl('http://127.0.0.1:4000/hooks', { allowPrivate: true }), {
      url: 'http://127.0.0.1:4000/hooks',
    });
  });

  test('what is not a URL is refused with an example', () => {
    const checked = checkEndpointUrl('hooks.example.com', strict);
    assert.ok('error' in checked);
    assert.match(checked.error, /is not a URL/);
  });
});
