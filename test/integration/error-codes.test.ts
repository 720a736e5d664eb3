import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import pg from 'pg';
import { describe } from 'vitest';
import { ERROR_STATUS } from '../../src/http/errors.ts';
import { newId } from '../../src/lib/ids.ts';
import type { RunningServer } from '../../src/main.ts';
import { createAdmin } from '../factories/admins.ts';
import { dealEvent, ingest, postEvent } from '../factories/deals.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { adminClient } from '../helpers/adminClient.ts';
import { awaitFreshWindow } from '../helpers/clock.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// Every error code each API can send, one request per code over the real server and the real database, each body
// validated against its contract's `Error` schema, and the codes sent compared with the contract's enum: a code
// the server sends and the contract does not list fails here (and, in every other test, in the server's own
// test-mode check), and so does a code the contract lists that nothing sends.
//
// `unavailable` is a lock the database cannot grant in time: the server waits 100 ms for a lock (instead of 5 s)
// while this file holds the row a request needs. `internal_error` is not listed among the codes a request can
// provoke: it is what a fault in the server answers, and the error handler's unit tests send it.

test.override('serverSettings', { env: { QUOTIENT_DB_LOCK_TIMEOUT_MS: '100' }, options: {} });

type Surface = 'public' | 'admin';

const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
const validators = {
  public: errorSchema('openapi.json'),
  admin: errorSchema('openapi-admin.json'),
};
const listed = {
  public: enumOf('openapi.json'),
  admin: enumOf('openapi-admin.json'),
};

/** What a fault in the server answers, not something a request can provoke (see above). */
const FAULTS_ONLY = new Set(['internal_error']);

function contract(file: string): { components: { schemas: { Error: { properties: { error: { enum: string[] } } } } } } {
  return JSON.parse(readFileSync(new URL(`../../generated/${file}`, import.meta.url), 'utf8'));
}

function errorSchema(file: string) {
  ajv.addSchema({ ...contract(file), $id: file });
  const validate = ajv.getSchema(`${file}#/components/schemas/Error`);
  if (!validate) throw new Error(`generated/${file} has no Error schema`);
  return validate;
}

function enumOf(file: string): string[] {
  return [...contract(file).components.schemas.Error.properties.error.enum].sort();
}

/** Requests to the server, and the codes they were answered with, each checked against the surface's contract. */
function recorder(surface: Surface, server: RunningServer) {
  const url = (path: string) => `${server.url}${path}`;
  const sent = new Set<string>();
  /** `parsed`: the body a client has read already (openapi-fetch's `error`). */
  const expectError = async (response: Response, code: string, parsed?: unknown): Promise<void> => {
    const body = (parsed ?? JSON.parse(await response.text())) as Record<string, unknown>;
    const text = JSON.stringify(body);
    assert.equal(body.error, code, text);
    assert.equal(response.status, ERROR_STATUS[code as keyof typeof ERROR_STATUS], text);
    const validate = validators[surface];
    assert.ok(validate(body), `${text}: ${ajv.errorsText(validate.errors)}`);
    sent.add(code);
  };
  const assertEveryListedCodeSent = () => {
    assert.deepEqual(
      [...sent].sort(),
      listed[surface].filter((code) => !FAULTS_ONLY.has(code)),
    );
  };
  return { url, expectError, assertEveryListedCodeSent };
}

const TOO_LARGE = `{"external_id":"${'x'.repeat(1024 * 1024)}"}`;

/**
 * The response to `request` while a transaction of this file holds a lock on the row `sql` selects: a request
 * that needs the row waits for the server's lock timeout and is answered 503 `unavailable`.
 */
async function whileRowLocked(sql: string, values: unknown[], request: () => Promise<Response>): Promise<Response> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query('BEGIN');
    const { rowCount } = await client.query(`${sql} FOR UPDATE`, values);
    assert.equal(rowCount, 1, 'the row to hold exists');
    const response = await request();
    assert.equal(response.headers.get('retry-after'), '5');
    return response;
  } finally {
    await client.query('ROLLBACK');
    await client.end();
  }
}

describe('error codes', () => {
  test('the public API sends every code its contract lists, each in the contract format', async ({
    db,
    server,
    org,
    rawKey,
    newOrg,
  }) => {
    const { url, expectError, assertEveryListedCodeSent } = recorder('public', server);
    const auth = { authorization: `Bearer ${rawKey}` };
    const json = { ...auth, 'content-type': 'application/json' };

    await expectError(await fetch(url('/v1/deals')), 'unauthenticated');
    await expectError(
      await fetch(url('/v1/deals'), { headers: { authorization: 'Bearer qtn_not_a_key' } }),
      'invalid_key',
    );
    const readOnly = await newOrg({ scopes: ['deals:read'] });
    await expectError(
      await fetch(url('/v1/earnings'), { headers: { authorization: `Bearer ${readOnly.rawKey}` } }),
      'forbidden',
    );
    await expectError(await fetch(url('/v1/no-such-route'), { headers: auth }), 'not_found');
    const notAllowed = await fetch(url('/v1/deals'), { method: 'DELETE', headers: auth });
    assert.ok(notAllowed.headers.get('allow'));
    await expectError(notAllowed, 'method_not_allowed');
    await expectError(
      await fetch(url('/v1/deals/events'), { method: 'POST', headers: json, body: '{"external_id":' }),
      'invalid_json',
    );
    await expectError(
      await fetch(url('/v1/deals/events'), { method: 'POST', headers: json, body: '{}' }),
      'invalid_body',
    );
    await expectError(
      await fetch(url('/v1/deals/events'), { method: 'POST', headers: json, body: TOO_LARGE }),
      'payload_too_large',
    );
    await expectError(
      await postEvent(server, rawKey, dealEvent(), { 'content-encoding': 'compress' }),
      'unsupported_media_type',
    );

    const dedupKey = `dedup-${Date.now()}`;
    await ingest(server, rawKey, dealEvent({ dedup_key: dedupKey }));
    await expectError(await postEvent(server, rawKey, dealEvent({ dedup_key: dedupKey })), 'dedup_conflict');
    await expectError(
      await fetch(url('/v1/payments'), {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          external_id: `pay-${Date.now()}`,
          deal_external_id: 'no-such-deal',
          amount_cents: 100,
          received_on: '2026-03-20',
        }),
      }),
      'unknown_deal',
    );

    await applyPlan(db, org.id, planDocument());
    await ingest(
      server,
      rawKey,
      dealEvent({}, { stage: 'closed_won', close_date: '2026-03-11', custom: { region: 'NA' } }),
    );
    await expectError(await fetch(url('/v1/payouts?period_id=2026-03'), { headers: auth }), 'period_open');

    const inquirer = await newOrg({ scopes: ['deals:write', 'earnings:read', 'inquiries:write'] });
    const inquirerJson = { authorization: `Bearer ${inquirer.rawKey}`, 'content-type': 'application/json' };
    await ingest(server, inquirer.rawKey, dealEvent());
    const [repUser] = (await inquirer.client.users.listPage({ external_id: 'rep-017' })).users;
    const opened = await fetch(url('/v1/inquiries'), {
      method: 'POST',
      headers: inquirerJson,
      body: JSON.stringify({
        subject: { kind: 'statement', period_id: '2026-04' },
        user_id: repUser?.id,
        type: 'other',
        message: 'Why?',
      }),
    });
    const inquiryId = ((await opened.json()) as { id: string }).id;
    const withdraw = () => fetch(url(`/v1/inquiries/${inquiryId}/withdraw`), { method: 'POST', headers: inquirerJson });
    assert.equal((await withdraw()).status, 200);
    await expectError(await withdraw(), 'invalid_state');

    // Accepting a plan (docs/plan-acceptance.md): the rep's own act, with their name typed as it is.
    const accepting = await newOrg({ scopes: ['deals:write', 'earnings:read', 'plans:read', 'rep_tokens:write'] });
    const plan = await applyPlan(db, accepting.org.id, planDocument());
    await ingest(server, accepting.rawKey, dealEvent());
    await testServices({ db }).admin.planAcceptances.requestCurrent(accepting.org.id, plan.plan_id);
    const [rep017] = (await accepting.client.users.listPage({ external_id: 'rep-017' })).users;
    const minted = await accepting.client.repTokens.create({ user_id: rep017?.id as string });
    const accept = (token: string, typedName: string) =>
      fetch(url(`/v1/plans/${plan.plan_id}/acceptances`), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ typed_name: typedName }),
      });
    await expectError(await accept(minted.token, 'Someone Else'), 'typed_name_mismatch');
    await expectError(await accept(accepting.rawKey, 'rep-017'), 'rep_token_required');

    const limited = await newOrg({ rateLimit: 1 });
    const limitedAuth = { authorization: `Bearer ${limited.rawKey}` };
    // Both requests in one UTC-minute window: across a boundary the second would open a new window and pass.
    await awaitFreshWindow();
    assert.equal((await fetch(url('/v1/deals'), { headers: limitedAuth })).status, 200);
    const throttled = await fetch(url('/v1/deals'), { headers: limitedAuth });
    assert.ok(throttled.headers.get('retry-after'));
    await expectError(throttled, 'rate_limited');

    const held = dealEvent();
    await ingest(server, rawKey, held);
    const waited = await whileRowLocked(
      'SELECT 1 FROM deals WHERE org_id = $1 AND external_id = $2',
      [org.id, held.external_id],
      () => postEvent(server, rawKey, { ...held, state: { amount_cents: 1 } }),
    );
    await expectError(waited, 'unavailable');

    assertEveryListedCodeSent();
  });

  test('the admin API sends every code its contract lists, each in the contract format', async ({
    db,
    server,
    signedIn,
  }) => {
    const { url, expectError, assertEveryListedCodeSent } = recorder('admin', server);
    const json = { 'content-type': 'application/json', 'x-forwarded-for': '10.250.0.1' };
    const signIn = (body: string, headers: Record<string, string> = {}) =>
      fetch(url('/admin/v1/sessions'), { method: 'POST', headers: { ...json, ...headers }, body });

    await expectError(await fetch(url('/admin/v1/me')), 'unauthenticated');
    await expectError(await signIn('{"email":'), 'invalid_json');
    await expectError(await signIn('{}'), 'invalid_body');
    await expectError(await signIn(TOO_LARGE), 'payload_too_large');
    await expectError(await signIn('{}', { 'content-encoding': 'compress' }), 'unsupported_media_type');
    await expectError(await fetch(url('/admin/v1/no-such-route')), 'not_found');
    const notAllowed = await fetch(url('/admin/v1/me'), { method: 'DELETE' });
    assert.ok(notAllowed.headers.get('allow'));
    await expectError(notAllowed, 'method_not_allowed');

    const { org, account, client } = await signedIn();
    const wrong = () => signIn(JSON.stringify({ email: account.email, password: 'not the password' }));
    await expectError(await wrong(), 'invalid_credentials');
    for (let attempt = 1; attempt < 5; attempt++) assert.equal((await wrong()).status, 401);
    const throttled = await wrong();
    assert.ok(throttled.headers.get('retry-after'));
    await expectError(throttled, 'rate_limited');

    const viewer = adminClient(server);
    const viewerAccount = await createAdmin(db, org.id, 'viewer');
    assert.equal((await viewer.signIn(viewerAccount.email, viewerAccount.password)).response.status, 201);
    const asViewer = await viewer.api.POST('/admin/v1/api-keys', { body: { name: 'k', scopes: ['deals:read'] } });
    await expectError(asViewer.response, 'forbidden', asViewer.error);

    const broken = await client.api.POST('/admin/v1/plan-files', {
      body: { text: 'key: broken\nname: Broken\nchips: []\nquota_cents: lots\n', file_name: 'broken.yaml' },
    });
    await expectError(broken.response, 'invalid_plan_file', broken.error);

    const period = { params: { path: { id: '2026-01' } } };
    assert.equal((await client.api.POST('/admin/v1/periods/{id}/lock', period)).response.status, 200);
    assert.equal((await client.api.POST('/admin/v1/periods/{id}/mark-paid', period)).response.status, 200);
    const relocked = await client.api.POST('/admin/v1/periods/{id}/lock', period);
    await expectError(relocked.response, 'invalid_state', relocked.error);

    await db.user.create({ data: { id: newId('user'), org_id: org.id, external_id: 'rep-017' } });
    const applied = await client.api.POST('/admin/v1/plan-files', {
      body: { text: JSON.stringify(planDocument()), file_name: 'plan.json' },
    });
    assert.equal(applied.response.status, 200, JSON.stringify(applied.error));
    const [asked] = (
      await testServices({ db }).admin.planAcceptances.list({ kind: 'org', orgId: org.id }, { filters: {}, limit: 1 })
    ).acceptances;
    const remind = () =>
      client.api.POST('/admin/v1/plan-acceptances/{id}/remind', { params: { path: { id: asked?.id as string } } });
    assert.equal((await remind()).response.status, 200);
    const again = await remind();
    assert.ok(again.response.headers.get('retry-after'));
    await expectError(again.response, 'reminded_recently', again.error);

    const february = { params: { path: { id: '2026-02' } } };
    assert.equal((await client.api.POST('/admin/v1/periods/{id}/lock', february)).response.status, 200);
    let refusal: unknown;
    const waited = await whileRowLocked(
      'SELECT 1 FROM periods WHERE org_id = $1 AND id = $2',
      [org.id, '2026-02'],
      async () => {
        const paid = await client.api.POST('/admin/v1/periods/{id}/mark-paid', february);
        refusal = paid.error;
        return paid.response;
      },
    );
    await expectError(waited, 'unavailable', refusal);

    assertEveryListedCodeSent();
  });
});
