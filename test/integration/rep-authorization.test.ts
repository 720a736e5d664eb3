import assert from 'node:assert/strict';
import request from 'supertest';
import { describe } from 'vitest';
import { loadContract } from '../../src/http/contract.ts';
import { OperationTable } from '../../src/http/operations.ts';
import type { RunningServer } from '../../src/main.ts';
import { test as fixtureTest } from '../helpers/fixtures.ts';
import { type RepObjects, type RepWorld, repClient, repWorld } from '../helpers/repWorld.ts';

// The rep principal's authorization matrix (docs/rep-tokens.md), in the style of the scope matrix of access.test.ts:
// for EVERY operation of the contract, a rep token of rep A against A's own objects, rep B's (a peer), rep C's (A
// manages C: read-only) and another org's, with the status each gets and, for lists, whether the object shows.
// An operation added to the contract without a row here fails the test.

const test = fixtureTest.extend('world', { scope: 'file' }, async ({ db, server }) => repWorld(db, server));

type Target = 'own' | 'peer' | 'report' | 'otherOrg';
const TARGETS: readonly Target[] = ['own', 'peer', 'report', 'otherOrg'];

interface Call {
  method: 'get' | 'post' | 'delete';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** A stream (server-sent events): only its status is read, then it is closed. */
  stream?: boolean;
}

/** What a rep token gets: a status, and for a list whether the target's object is in it. */
interface Expected {
  status: number;
  shown?: boolean;
}

interface Row {
  call: (objects: RepObjects) => Call;
  expected: Record<Target, Expected>;
  /** For a list: whether the answer shows the target's object. */
  shows?: (body: unknown, objects: RepObjects) => boolean;
}

const READ = { own: { status: 200 }, peer: { status: 404 }, report: { status: 200 }, otherOrg: { status: 404 } };
const LIST = {
  own: { status: 200, shown: true },
  peer: { status: 200, shown: false },
  report: { status: 200, shown: true },
  otherOrg: { status: 200, shown: false },
};
const EVERYONE = { own: { status: 200 }, peer: { status: 200 }, report: { status: 200 }, otherOrg: { status: 200 } };
/** A rep action (x-quotient-rep-action) that creates: on the rep's own and their reports' objects only. */
const REP_WRITE_CREATED = {
  own: { status: 201 },
  peer: { status: 404 },
  report: { status: 201 },
  otherOrg: { status: 404 },
};
const FORBIDDEN = { own: { status: 403 }, peer: { status: 403 }, report: { status: 403 }, otherOrg: { status: 403 } };

const ids = (items: unknown, member = 'id') => (items as Array<Record<string, unknown>>).map((item) => item[member]);

const MATRIX: Record<string, Row> = {
  getAuthContext: { call: () => ({ method: 'get', path: '/v1/' }), expected: EVERYONE },
  getOpenApiDocument: { call: () => ({ method: 'get', path: '/v1/openapi.json' }), expected: EVERYONE },
  getHealth: { call: () => ({ method: 'get', path: '/healthz' }), expected: EVERYONE },
  getReadiness: { call: () => ({ method: 'get', path: '/readyz' }), expected: EVERYONE },
  listDeals: {
    call: (o) => ({ method: 'get', path: '/v1/deals', query: { owner_external_id: o.externalId } }),
    expected: LIST,
    shows: (body, o) => ids((body as { deals: unknown }).deals).includes(o.wonDealId),
  },
  ingestDealEvent: {
    call: (o) => ({
      method: 'post',
      path: '/v1/deals/events',
      body: { external_id: `won-${o.externalId}`, state: { owner_external_id: o.externalId, stage: 'lost' } },
    }),
    expected: FORBIDDEN,
  },
  ingestDealEventBatch: {
    call: (o) => ({
      method: 'post',
      path: '/v1/deals/events/batch',
      body: { events: [{ external_id: `won-${o.externalId}`, state: { owner_external_id: o.externalId } }] },
    }),
    expected: FORBIDDEN,
  },
  // Payments are the billing system's: an API key's, never a rep token's (docs/api.md, Payments).
  recordPayment: {
    call: (o) => ({
      method: 'post',
      path: '/v1/payments',
      body: {
        external_id: `pay-${o.externalId}`,
        deal_external_id: `won-${o.externalId}`,
        amount_cents: 100,
        received_on: '2026-04-20',
      },
    }),
    expected: FORBIDDEN,
  },
  listPayments: { call: () => ({ method: 'get', path: '/v1/payments' }), expected: FORBIDDEN },
  getPayment: {
    call: () => ({ method: 'get', path: '/v1/payments/pay_01kq3a7d5ef0v9n4xw8f7c1b2e' }),
    expected: FORBIDDEN,
  },
  voidPayment: {
    call: () => ({ method: 'delete', path: '/v1/payments/pay_01kq3a7d5ef0v9n4xw8f7c1b2e' }),
    expected: FORBIDDEN,
  },
  listEarnings: {
    call: (o) => ({ method: 'get', path: '/v1/earnings', query: { user_id: o.userId } }),
    expected: LIST,
    shows: (body, o) => ids((body as { earnings: unknown }).earnings).includes(o.earningId),
  },
  getEarning: { call: (o) => ({ method: 'get', path: `/v1/earnings/${o.earningId}` }), expected: READ },
  listUsers: {
    call: (o) => ({ method: 'get', path: '/v1/users', query: { external_id: o.externalId } }),
    expected: LIST,
    shows: (body, o) => ids((body as { users: unknown }).users).includes(o.userId),
  },
  getUser: { call: (o) => ({ method: 'get', path: `/v1/users/${o.userId}` }), expected: READ },
  getStatement: { call: (o) => ({ method: 'get', path: `/v1/users/${o.userId}/statements/2026-04` }), expected: READ },
  listPayouts: {
    call: () => ({ method: 'get', path: '/v1/payouts', query: { period_id: '2026-04' } }),
    expected: LIST,
    shows: (body, o) => ids((body as { payouts: unknown }).payouts, 'user_id').includes(o.userId),
  },
  createEstimate: {
    call: (o) => ({ method: 'post', path: '/v1/estimates', body: { deal_id: o.openDealId, close_date: '2026-05-20' } }),
    expected: READ,
  },
  listPlans: {
    call: () => ({ method: 'get', path: '/v1/plans' }),
    expected: LIST,
    shows: (body, o) => ids((body as { plans: unknown }).plans).includes(o.planId),
  },
  getPlan: { call: (o) => ({ method: 'get', path: `/v1/plans/${o.planId}` }), expected: READ },
  getPlanDocument: { call: (o) => ({ method: 'get', path: `/v1/plans/${o.planId}/document` }), expected: READ },
  createRepToken: {
    call: (o) => ({ method: 'post', path: '/v1/rep-tokens', body: { user_id: o.userId } }),
    expected: FORBIDDEN,
  },
  // Everyone gets a stream; what it announces is filtered to the visible reps (statement-downloads-and-stream.test.ts).
  streamEvents: { call: () => ({ method: 'get', path: '/v1/events/stream', stream: true }), expected: EVERYONE },
  listAdjustments: {
    call: (o) => ({ method: 'get', path: '/v1/adjustments', query: { user_id: o.userId } }),
    expected: LIST,
    shows: (body, o) => ids((body as { adjustments: unknown }).adjustments).includes(o.adjustmentId),
  },
  getStatementApproval: {
    call: (o) => ({ method: 'get', path: `/v1/users/${o.userId}/statements/2026-04/approvals` }),
    expected: READ,
  },
  // The rep's own statement and a report's (as their manager): the world's org asks for no approvals (409); the
  // approvals' rules themselves are approvals.test.ts's.
  approveStatement: {
    call: (o) => ({ method: 'post', path: `/v1/users/${o.userId}/statements/2026-04/approvals` }),
    expected: { own: { status: 409 }, peer: { status: 404 }, report: { status: 409 }, otherOrg: { status: 404 } },
  },
  listInquiries: {
    call: (o) => ({ method: 'get', path: '/v1/inquiries', query: { user_id: o.userId } }),
    expected: LIST,
    shows: (body, o) => ids((body as { inquiries: unknown }).inquiries).includes(o.inquiryId),
  },
  openInquiry: {
    call: (o) => ({
      method: 'post',
      path: '/v1/inquiries',
      body: { subject: { kind: 'earning', earning_id: o.earningId }, type: 'other', message: 'Why this amount?' },
    }),
    expected: REP_WRITE_CREATED,
  },
  getInquiry: { call: (o) => ({ method: 'get', path: `/v1/inquiries/${o.inquiryId}` }), expected: READ },
  commentOnInquiry: {
    call: (o) => ({ method: 'post', path: `/v1/inquiries/${o.inquiryId}/comments`, body: { body: 'More detail' } }),
    expected: REP_WRITE_CREATED,
  },
  // After the comment: a withdrawn inquiry takes no more comments.
  withdrawInquiry: { call: (o) => ({ method: 'post', path: `/v1/inquiries/${o.inquiryId}/withdraw` }), expected: READ },
  listPlanAcceptances: {
    call: (o) => ({ method: 'get', path: '/v1/plan-acceptances', query: { user_id: o.userId } }),
    expected: LIST,
    shows: (body, o) => ids((body as { plan_acceptances: unknown }).plan_acceptances).includes(o.acceptanceId),
  },
  getPlanAcceptance: {
    call: (o) => ({ method: 'get', path: `/v1/plan-acceptances/${o.acceptanceId}` }),
    expected: READ,
  },
  getPlanAcceptanceDocument: {
    call: (o) => ({ method: 'get', path: `/v1/plan-acceptances/${o.acceptanceId}/document` }),
    expected: READ,
  },
  // A rep accepts for themself only: their own plan; a report's plan is their report's to accept (not assigned to
  // the manager: 404), as a peer's or another org's.
  acceptPlan: {
    call: (o) => ({ method: 'post', path: `/v1/plans/${o.planId}/acceptances`, body: { typed_name: 'Rep-A' } }),
    expected: { own: { status: 200 }, peer: { status: 404 }, report: { status: 404 }, otherOrg: { status: 404 } },
  },
  revokeRepToken: {
    call: () => ({ method: 'post', path: '/v1/rep-tokens/rtk_01kmz3v0c8e4b9s7d2qx6w5n1a/revoke' }),
    expected: FORBIDDEN,
  },
};

function objectsOf(world: RepWorld, target: Target): RepObjects {
  return { own: world.a, peer: world.b, report: world.c, otherOrg: world.other }[target];
}

async function send(server: RunningServer, token: string, call: Call) {
  if (call.stream) {
    const stop = new AbortController();
    const response = await fetch(`${server.url}${call.path}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: stop.signal,
    });
    const body = response.headers.get('content-type')?.startsWith('application/json') ? await response.json() : {};
    stop.abort();
    return { status: response.status, body };
  }
  const pending = request(server.url)[call.method](call.path).set('authorization', `Bearer ${token}`);
  if (call.query) pending.query(call.query);
  return call.body === undefined ? pending : pending.send(call.body as object);
}

describe('the rep principal, operation by operation', () => {
  test('every operation of the contract has a row', () => {
    const operations = new OperationTable(loadContract() as ConstructorParameters<typeof OperationTable>[0]).all();
    const missing = operations.map((operation) => operation.operationId).filter((id) => !(id in MATRIX));
    assert.deepEqual(missing, [], 'add a row to the matrix for each new operation');
    const stale = Object.keys(MATRIX).filter((id) => !operations.some((operation) => operation.operationId === id));
    assert.deepEqual(stale, []);
  });

  test("rep A against their own, a peer's, a report's and another org's objects", async ({ server, world }) => {
    const { minted } = await repClient(server, world, world.a);
    const failures: string[] = [];
    for (const [operationId, row] of Object.entries(MATRIX)) {
      for (const target of TARGETS) {
        const objects = objectsOf(world, target);
        const response = await send(server, minted.token, row.call(objects));
        const expected = row.expected[target];
        const label = `${operationId} × ${target}`;
        if (response.status !== expected.status) {
          failures.push(`${label}: ${response.status} ${JSON.stringify(response.body)}, expected ${expected.status}`);
          continue;
        }
        if (expected.status === 404) assert.equal(response.body.error, 'not_found', label);
        if (expected.status === 403) assert.equal(response.body.error, 'forbidden', label);
        if (expected.shown !== undefined) {
          const shows = row.shows?.(response.body, objects);
          if (shows !== expected.shown) failures.push(`${label}: shown ${shows}, expected ${expected.shown}`);
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  test("the same calls with the org's API key see every rep of the org, and the other org's ids are 404", async ({
    server,
    world,
  }) => {
    for (const operationId of [
      'getEarning',
      'getUser',
      'getStatement',
      'getPlan',
      'getPlanDocument',
      'createEstimate',
    ] as const) {
      const row = MATRIX[operationId] as Row;
      for (const target of TARGETS) {
        const response = await send(server, world.rawKey, row.call(objectsOf(world, target)));
        assert.equal(response.status, target === 'otherOrg' ? 404 : 200, `${operationId} × ${target} with the key`);
      }
    }
  });

  test('a rep without reports sees only themself; a 404 reads exactly like an unknown id', async ({
    server,
    world,
  }) => {
    const { minted } = await repClient(server, world, world.b);
    const ofA = await send(server, minted.token, { method: 'get', path: `/v1/users/${world.a.userId}` });
    const unknown = await send(server, minted.token, {
      method: 'get',
      path: '/v1/users/user_01kmz3v0c8e4b9s7d2qx6w5n1a',
    });
    assert.equal(ofA.status, 404);
    assert.deepEqual(Object.keys(ofA.body).sort(), Object.keys(unknown.body).sort());
    assert.equal(ofA.body.reason, `no user ${world.a.userId}`);
    const users = await send(server, minted.token, { method: 'get', path: '/v1/users' });
    assert.deepEqual(ids(users.body.users), [world.b.userId]);
  });

  test('a rep estimates a hypothetical deal of their own, not one for another rep', async ({ server, world }) => {
    const { minted } = await repClient(server, world, world.c);
    const own = await send(server, minted.token, {
      method: 'post',
      path: '/v1/estimates',
      body: { state: { owner_external_id: 'rep-c', amount_cents: 100_000 }, close_date: '2026-05-20' },
    });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    const forManager = await send(server, minted.token, {
      method: 'post',
      path: '/v1/estimates',
      body: { state: { owner_external_id: 'rep-a', amount_cents: 100_000 }, close_date: '2026-05-20' },
    });
    assert.equal(forManager.status, 404);
    const closed = await send(server, minted.token, {
      method: 'post',
      path: '/v1/estimates',
      body: { deal_id: world.c.wonDealId, close_date: '2026-05-20' },
    });
    assert.equal(closed.status, 404, 'only open deals are estimated for a rep');
  });
});
