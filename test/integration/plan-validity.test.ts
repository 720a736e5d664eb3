import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { EarningListItem } from '../../sdk/src/index.ts';
import { validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import { type ConditionShape, conditionShapes, matchingEventState } from '../factories/conditionShapes.ts';
import { externalId } from '../factories/deals.ts';
import { applyPlan } from '../factories/plans.ts';
import { test } from '../helpers/fixtures.ts';

// The whole way: every condition shape the plan-file check accepts is applied (`plans apply`'s service), a deal
// that satisfies it is sent through the API, and the chip earns on that deal. Each chip also requires
// `custom.shape` to name it, so that it earns on its own deal only.

const CHIPS_PER_PLAN = 90;

function chipOf(shape: ConditionShape, key: string) {
  return {
    key,
    name: `${shape.field} ${shape.op} ${shape.valueKind}`,
    kind: 'flat',
    amount_cents: 10_000,
    when: { all: [shape.condition, { field: 'custom.shape', op: 'eq', value: key }] },
  };
}

describe('plan validity, applied', () => {
  test('every accepted condition shape, applied as a plan, pays on a deal that satisfies it', {
    timeout: 300_000,
  }, async ({ db, org, client }) => {
    const accepted = conditionShapes().filter(
      (shape) =>
        validatePlanDocument({
          key: 'probe',
          name: 'Probe',
          assignees: 'all',
          chips: [chipOf(shape, 'probe')],
        }).ok,
    );
    assert.ok(accepted.length >= 100, `only ${accepted.length} shapes accepted`);
    // The shapes use "lost" as a stage name too; the org's own lost stages are named otherwise, so that a deal in
    // stage "lost" is an open deal here. (Which stages are lost is org data the plan file cannot see.)
    await db.org.update({ where: { id: org.id }, data: { lost_stages: ['closed_lost'] } });

    const chipIds = new Map<string, string>();
    for (let start = 0; start < accepted.length; start += CHIPS_PER_PLAN) {
      const chips = accepted
        .slice(start, start + CHIPS_PER_PLAN)
        .map((shape, index) => chipOf(shape, `s${start + index}`));
      const applied = await applyPlan(db, org.id, {
        key: `shapes-${start}`,
        name: `Shapes from ${start}`,
        assignees: 'all',
        chips,
      });
      for (const chip of applied.chips) chipIds.set(chip.key, chip.id);
    }

    const dealOf = new Map<string, string>();
    for (const [index, shape] of accepted.entries()) {
      const key = `s${index}`;
      const ids = await client.deals.ingestEvent({
        external_id: externalId('shape'),
        state: matchingEventState(shape, key),
      });
      dealOf.set(key, ids.deal_id);
    }

    const earnings: EarningListItem[] = [];
    for await (const earning of client.earnings.list({ limit: 200 })) earnings.push(earning);
    const unpaid = accepted.flatMap((shape, index) => {
      const key = `s${index}`;
      const rows = earnings.filter((row) => row.rule_chip_id === chipIds.get(key));
      const paid = rows.length === 1 && rows[0]?.deal_id === dealOf.get(key) && rows[0]?.amount_cents === 10_000;
      return paid ? [] : [`${shape.field} ${shape.op} ${shape.valueKind}: ${JSON.stringify(rows)}`];
    });
    assert.deepEqual(unpaid, []);
  });
});
