import assert from 'node:assert/strict';
import { afterAll, describe, test } from 'vitest';
import * as audit from '../../src/repositories/audit.ts';
import { databaseStatements } from '../../src/repositories/transaction.ts';
import { createOrg } from '../factories/access.ts';
import { onlyJson, runCli, SLOW_CLI_TEST_MS } from '../helpers/cli.ts';
import { closeTestDatabase, testDatabase } from '../helpers/database.ts';

afterAll(closeTestDatabase);

// The endpoints' administration. Delivery through the CLI (test, deliveries, redeliver) is in
// webhooks-delivery.test.ts, with the workers.

const LOCAL = { ...process.env, QUOTIENT_WEBHOOKS_ALLOW_PRIVATE: 'true' };
const STRICT: NodeJS.ProcessEnv = { ...process.env };
delete STRICT.QUOTIENT_WEBHOOKS_ALLOW_PRIVATE;

interface EndpointJson {
  id: string;
  url: string;
  events: string[];
  status: string;
  secret?: string;
  previous_secret_expires_at: string | null;
}

async function webhooks(args: string[], env: NodeJS.ProcessEnv = LOCAL) {
  return runCli(['webhooks', ...args, '--json'], env);
}

async function added(orgId: string, url: string, extra: string[] = []) {
  const result = await webhooks(['add', '--org', orgId, '--url', url, ...extra]);
  assert.equal(result.code, 0, result.stderr);
  return onlyJson(result) as EndpointJson & { secret: string };
}

describe('quotient webhooks (CLI)', () => {
  test('add prints the whsec_ secret once; list shows the endpoint but never a secret', async () => {
    const org = await createOrg(testDatabase());
    const endpoint = await added(org.id, 'http://127.0.0.1:9/hooks', ['--events', 'deal.updated,period.paid']);
    assert.match(endpoint.id, /^wh_[0-7][0-9a-hjkmnp-tv-z]{25}$/);
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(endpoint.url, 'http://127.0.0.1:9/hooks');
    assert.deepEqual(endpoint.events, ['deal.updated', 'period.paid']);
    assert.equal(endpoint.status, 'enabled');

    const listed = await webhooks(['list', '--org', org.id]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(!listed.stdout.includes(endpoint.secret.slice(6)), 'list never prints a secret');
    const { endpoints } = onlyJson(listed) as { endpoints: EndpointJson[] };
    assert.deepEqual(
      endpoints.map(({ id, url, events, status }) => ({ id, url, events, status })),
      [{ id: endpoint.id, url: endpoint.url, events: endpoint.events, status: 'enabled' }],
    );
    assert.ok(!('secret' in (endpoints[0] as object)));

    const human = await runCli(['webhooks', 'add', '--org', org.id, '--url', 'http://127.0.0.1:9/other'], LOCAL);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^ {2}whsec_\S+$/m);
    assert.match(human.stdout, /only time the signing secret is shown/);
  });

  test('only https URLs to public addresses are accepted unless QUOTIENT_WEBHOOKS_ALLOW_PRIVATE=true', {
    timeout: SLOW_CLI_TEST_MS,
  }, async () => {
    const org = await createOrg(testDatabase());
    const refusals: [string, RegExp][] = [
      ['http://hooks.example.com/q', /must use https, got http/],
      ['https://127.0.0.1/q', /127\.0\.0\.1 is a loopback address/],
      ['https://localhost:8443/q', /localhost is a loopback address/],
      ['https://10.2.3.4/q', /10\.2\.3\.4 is a private address/],
      ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local \(cloud metadata\) address/],
      ['https://[fd00:ec2::254]/q', /fd00:ec2::254 is a unique local address/],
      ['https://100.64.1.1/q', /carrier-grade NAT/],
    ];
    for (const [url, reason] of refusals) {
      const result = await webhooks(['add', '--org', org.id, '--url', url], STRICT);
      assert.equal(result.code, 2, url);
      const error = onlyJson(result) as { error: string; reason: string };
      assert.equal(error.error, 'invalid_argument', url);
      assert.match(error.reason, reason, url);
    }
    const accepted = await webhooks(['add', '--org', org.id, '--url', 'https://hooks.example.com/q'], STRICT);
    assert.equal(accepted.code, 0, accepted.stderr);
    const local = await webhooks(['add', '--org', org.id, '--url', 'http://127.0.0.1:4000/q'], LOCAL);
    assert.equal(local.code, 0, local.stderr);
  });

  test('when --events names an unknown kind, then the command is refused with the list of kinds', async () => {
    const org = await createOrg(testDatabase());
    const result = await webhooks(['add', '--org', org.id, '--url', 'http://127.0.0.1:9/h', '--events', 'deal.won']);
    assert.equal(result.code, 2);
    assert.deepEqual(onlyJson(result), {
      error: 'invalid_argument',
      reason:
        'unknown event kind deal.won; the kinds are earning.created, earning.status_changed, deal.updated, period.locked, period.paid, period.reopened, adjustment.created, inquiry.created, inquiry.updated, plan.acceptance_requested, plan.accepted, statement.approval_reminder (omit --events for all of them)',
    });
  });

  test('rotate-secret, enable and remove change the endpoint and each writes an admin audit entry', {
    timeout: SLOW_CLI_TEST_MS,
  }, async () => {
    const org = await createOrg(testDatabase());
    const endpoint = await added(org.id, 'http://127.0.0.1:9/hooks');

    const rotated = await webhooks(['rotate-secret', endpoint.id, '--org', org.id]);
    assert.equal(rotated.code, 0, rotated.stderr);
    const withNewSecret = onlyJson(rotated) as EndpointJson & { secret: string };
    assert.match(withNewSecret.secret, /^whsec_/);
    assert.notEqual(withNewSecret.secret, endpoint.secret);
    const overlap = Date.parse(withNewSecret.previous_secret_expires_at ?? '') - Date.now();
    assert.ok(overlap > 23.9 * 3_600_000 && overlap <= 24 * 3_600_000);

    await testDatabase().webhookEndpoint.updateMany({
      where: { id: endpoint.id },
      data: { enabled: false, disabled_at: new Date(), disabled_reason: 'the endpoint answered 410 Gone' },
    });
    const refused = await webhooks(['test', endpoint.id, '--org', org.id]);
    assert.equal(refused.code, 2);
    assert.equal((onlyJson(refused) as { error: string }).error, 'invalid_state');
    const enabled = await webhooks(['enable', endpoint.id, '--org', org.id]);
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.deepEqual(
      (({ status, changed, disabled_reason }) => ({ status, changed, disabled_reason }))(
        onlyJson(enabled) as { status: string; changed: boolean; disabled_reason: string | null },
      ),
      { status: 'enabled', changed: true, disabled_reason: null },
    );

    const removed = await webhooks(['remove', endpoint.id, '--org', org.id]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal((onlyJson(removed) as EndpointJson).status, 'removed');
    const listed = onlyJson(await webhooks(['list', '--org', org.id])) as { endpoints: EndpointJson[] };
    assert.deepEqual(listed.endpoints, []);
    assert.equal((onlyJson(removed) as { changed: boolean }).changed, true);

    const entries = await audit.listForOrg(databaseStatements(testDatabase()), org.id, { limit: 20 });
    assert.deepEqual(
      entries
        .reverse()
        .map((entry) => [entry.actor_type, entry.action, (entry.details as { endpoint_id?: string }).endpoint_id]),
      [
        ['admin', 'webhook.added', endpoint.id],
        ['admin', 'webhook.secret_rotated', endpoint.id],
        ['admin', 'webhook.enabled', endpoint.id],
        ['admin', 'webhook.removed', endpoint.id],
      ],
    );
    for (const entry of entries) {
      assert.ok(!JSON.stringify(entry.details).includes('whsec_'), 'no secret in the audit log');
    }
  });

  test('removing a removed endpoint changes nothing and exits 0; an unknown endpoint is not_found', async () => {
    const org = await createOrg(testDatabase());
    const endpoint = await added(org.id, 'http://127.0.0.1:9/hooks');
    assert.equal((await webhooks(['remove', endpoint.id, '--org', org.id])).code, 0);
    const again = await webhooks(['remove', endpoint.id, '--org', org.id]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(
      (({ id, status, changed }) => ({ id, status, changed }))(onlyJson(again) as EndpointJson & { changed: boolean }),
      { id: endpoint.id, status: 'removed', changed: false },
    );
    const human = await runCli(['webhooks', 'remove', endpoint.id, '--org', org.id]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /already removed; nothing changed/);
    const unknown = await webhooks(['remove', 'wh_01jd0000000000000000000000', '--org', org.id]);
    assert.equal(unknown.code, 2);
    assert.equal((onlyJson(unknown) as { error: string }).error, 'not_found');
    const actions = (await audit.listForOrg(databaseStatements(testDatabase()), org.id, { limit: 20 })).map(
      (e) => e.action,
    );
    assert.deepEqual(actions, ['webhook.removed', 'webhook.added'], 'the second remove wrote no audit entry');
  });

  test('an unknown org or endpoint is not_found (exit 2)', async () => {
    const org = await createOrg(testDatabase());
    const noOrg = await webhooks(['list', '--org', 'org_01kaq0000000000000000000000']);
    assert.equal(noOrg.code, 2);
    assert.equal((onlyJson(noOrg) as { error: string }).error, 'not_found');
    const noEndpoint = await webhooks(['rotate-secret', 'wh_01kjyxwyg0fbpvdbp5my6tvh6n', '--org', org.id]);
    assert.equal(noEndpoint.code, 2);
    assert.deepEqual(onlyJson(noEndpoint), {
      error: 'not_found',
      reason: `org ${org.id} has no webhook endpoint wh_01kjyxwyg0fbpvdbp5my6tvh6n`,
    });
  });
});
