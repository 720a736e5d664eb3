import assert from 'node:assert/strict';
import request from 'supertest';
import { describe } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { test } from '../helpers/fixtures.ts';
import { noPlanChanges } from '../helpers/listeners.ts';

// Responses are validated against the contract by the test server itself (QUOTIENT_VALIDATE_RESPONSES), so a
// shape that drifts from openapi.yaml fails here as a 500.

/** supertest against the listening server, for what the SDK hides: the exact bytes of a body. */
function getRaw(server: RunningServer, path: string, rawKey: string) {
  return request(server.url).get(path).set('authorization', `Bearer ${rawKey}`);
}

describe('GET /v1/plans', () => {
  test('lists the active plans, oldest first, with exactly the list fields', async ({ db, newOrg }) => {
    const { org, client } = await newOrg({ scopes: ['plans:read'] });
    const first = await applyPlan(db, org.id, planDocument({ name: 'First' }));
    const second = await applyPlan(db, org.id, planDocument({ name: 'Second' }));
    const plans = await db.plan.findMany({ where: { org_id: org.id }, orderBy: { created_at: 'asc' } });

    const list = await client.plans.listPage();
    assert.deepEqual(list, {
      plans: [
        {
          id: first.plan_id,
          name: 'First',
          current_version_id: first.version_id,
          created_at: plans[0]?.created_at.toISOString(),
        },
        {
          id: second.plan_id,
          name: 'Second',
          current_version_id: second.version_id,
          created_at: plans[1]?.created_at.toISOString(),
        },
      ],
    });
  });

  test('leaves archived plans out and shows a new version as current', async ({ services, db, newOrg }) => {
    const { org, client } = await newOrg({ scopes: ['plans:read'] });
    const kept = planDocument({ name: 'Kept' });
    await applyPlan(db, org.id, kept);
    const archived = await applyPlan(db, org.id, planDocument({ name: 'Archived' }));
    await services.admin.planAdmin.archive(org.id, archived.plan_id, noPlanChanges);
    const changed = await applyPlan(db, org.id, { ...kept, quota_cents: 20000000 });

    const { plans } = await client.plans.listPage();
    assert.deepEqual(
      plans.map((plan) => [plan.name, plan.current_version_id]),
      [['Kept', changed.version_id]],
    );
  });

  test('an org without plans gets an empty list', async ({ newOrg }) => {
    const { client } = await newOrg({ scopes: ['plans:read'] });
    assert.deepEqual(await client.plans.listPage(), { plans: [] });
  });

  test('another org’s plans are not listed', async ({ db, newOrg }) => {
    const owner = await newOrg();
    const other = await newOrg();
    await applyPlan(db, owner.org.id, planDocument());
    assert.deepEqual(await other.client.plans.listPage(), { plans: [] });
  });

  test('a key without plans:read is 403', async ({ newOrg }) => {
    const { client } = await newOrg({ scopes: ['deals:read'] });
    await assert.rejects(client.plans.listPage(), {
      status: 403,
      body: { error: 'forbidden', reason: 'missing scope: plans:read' },
    });
  });
});

describe('GET /v1/plans/{id}', () => {
  test('returns the plan with exactly its fields and no chips', async ({ db, newOrg }) => {
    const { org, client } = await newOrg({ scopes: ['plans:read'] });
    const document = planDocument();
    const applied = await applyPlan(db, org.id, document);
    const row = await db.plan.findUniqueOrThrow({ where: { org_id_id: { org_id: org.id, id: applied.plan_id } } });

    const plan = await client.plans.get(applied.plan_id);
    assert.deepEqual(plan, {
      id: applied.plan_id,
      key: document.key,
      name: 'Core AE plan',
      status: 'active',
      period: 'monthly',
      quota_cents: 10000000,
      cap_cents: null,
      draw: null,
      assignees: 'all',
      current_version_id: applied.version_id,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    });
  });

  test('include=chips adds the current version’s chips in plan order (a removed chip is gone), with ids, versions, conditions and params', async ({
    db,
    newOrg,
  }) => {
    const { org, client } = await newOrg({ scopes: ['plans:read'] });
    const document = planDocument();
    const first = await applyPlan(db, org.id, document);
    const reordered = [document.chips[3], document.chips[0], { ...document.chips[2], amount_cents: 75000 }];
    const second = await applyPlan(db, org.id, { ...document, chips: reordered });
    const id = (key: string) => first.chips.find((chip) => chip.key === key)?.id;

    const plan = await client.plans.get(first.plan_id, { include: 'chips' });
    assert.equal(plan.current_version_id, second.version_id);
    assert.deepEqual(plan.chips, [
      {
        id: id('quota-bonus'),
        key: 'quota-bonus',
        name: 'Quota attainment bonus',
        kind: 'attainment_bonus',
        version: '1',
        when: null,
        params: { threshold_pct: 100, amount_cents: 200000 },
      },
      {
        id: id('base'),
        key: 'base',
        name: 'Base commission',
        kind: 'commission',
        version: '1',
        when: { field: 'custom.region', op: 'in', value: ['EMEA', 'NA'] },
        params: { rate_bps: 1000, base: 'amount_cents' },
      },
      {
        id: id('new-logo'),
        key: 'new-logo',
        name: 'New logo SPIFF',
        kind: 'flat',
        version: '2',
        when: { field: 'custom.new_logo', op: 'eq', value: true },
        params: { amount_cents: 75000 },
      },
    ]);
  });

  test('tiered chips show their mode and bands, members in plan-file order', async ({ db, server, newOrg }) => {
    const { org, rawKey } = await newOrg({ scopes: ['plans:read'] });
    const applied = await applyPlan(db, org.id, planDocument());
    const response = await getRaw(server, `/v1/plans/${applied.plan_id}?include=chips`, rawKey);
    assert.equal(response.status, 200);
    assert.match(
      response.text,
      /"params":\{"mode":"marginal","tiers":\[\{"up_to_pct":100,"rate_bps":0\},\{"up_to_pct":null,"rate_bps":500\}\]\}/,
    );
  });

  test('an archived plan is still fetchable by id, with status archived', async ({ services, db, newOrg }) => {
    const { org, client } = await newOrg({ scopes: ['plans:read'] });
    const applied = await applyPlan(db, org.id, planDocument());
    await services.admin.planAdmin.archive(org.id, applied.plan_id, noPlanChanges);
    const plan = await client.plans.get(applied.plan_id, { include: 'chips' });
    assert.equal(plan.status, 'archived');
    assert.equal(plan.chips?.length, 4);
  });

  test('another org’s plan and unknown ids of any shape are 404 not_found', async ({ db, newOrg }) => {
    const owner = await newOrg();
    const other = await newOrg();
    const applied = await applyPlan(db, owner.org.id, planDocument());
    const client = other.client;
    for (const id of [applied.plan_id, 'plan_01kjsj7s80fmtryrzh7j1q721q', 'nonsense']) {
      await assert.rejects(client.plans.get(id), {
        status: 404,
        body: { error: 'not_found', reason: `no plan ${id}` },
      });
      await assert.rejects(client.plans.get(id, { include: 'chips' }), { status: 404 });
    }
  });

  test('an unknown include value is 400 invalid_body naming include', async ({ db, server, newOrg }) => {
    const { org, rawKey } = await newOrg({ scopes: ['plans:read'] });
    const applied = await applyPlan(db, org.id, planDocument());
    const response = await getRaw(server, `/v1/plans/${applied.plan_id}?include=versions`, rawKey);
    assert.equal(response.status, 400);
    const body = response.body as { error: string; reason: string };
    assert.equal(body.error, 'invalid_body');
    assert.match(body.reason, /^include: /);
  });
});
