import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'vitest';
import { repHierarchyOf } from '../../src/domain/earnings/hierarchy.ts';
import type { EngineChip, Rep } from '../../src/domain/earnings/types.ts';
import { chip, deal, plan, rep, testId } from '../factories/earnings.ts';
import { EarningsWorld } from '../helpers/earningsLedger.ts';

// Which day's rep hierarchy a manager override reads: the deal's date, as for its period and the assignment windows.
// The plan-file schema, the plan features manual and the contract's override step say it in the same words, and the
// engine does what they say.

const DEAL_DATE = "the deal's date (its close date, else the day it was won, else, for an open deal, today)";

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

describe("an override reads the hierarchy of the deal's date", () => {
  test('the schema, the manual and the trace contract say so in the same words, and none says won time', () => {
    const schema = JSON.parse(readFileSync('schemas/plan-file.schema.json', 'utf8')) as {
      $defs: { overrideChip: { description: string } };
    };
    const texts = {
      schema: schema.$defs.overrideChip.description,
      manual: oneLine(readFileSync('docs/plan-features.md', 'utf8')),
      trace: oneLine(readFileSync('openapi/components/schemas/TraceOverrideStep.yaml', 'utf8')),
    };
    for (const [name, text] of Object.entries(texts)) {
      assert.ok(text.includes(DEAL_DATE), `${name} names ${DEAL_DATE}`);
    }
    assert.doesNotMatch(texts.schema, /won time/);
  });

  test('a deal closed before a reorganisation but won after it pays the manager of its close date', () => {
    // rep-017 reports to mgr-001 until 2026-04-14 and to mgr-002 from 2026-04-15.
    const before: Rep = { user_id: testId('user', 30), external_id: 'mgr-001' };
    const after: Rep = { user_id: testId('user', 31), external_id: 'mgr-002' };
    const hierarchy = repHierarchyOf([
      { rep_external_id: rep.external_id, manager_external_id: before.external_id, from: '2026-01-01' },
      { rep_external_id: rep.external_id, manager_external_id: after.external_id, from: '2026-04-15' },
    ]);
    const override: EngineChip = chip(21, {
      key: 'override',
      name: 'Manager override',
      kind: 'override',
      when: null,
      params: { rate_bps: 500, depth: 1 },
    });
    const world = new EarningsWorld(
      plan({ quota_cents: null, chips: [override] }),
      [rep, before, after],
      '2026-04-25',
      hierarchy,
    );
    // Closed 2026-04-10, won on the 20th: dated the 10th. Won on the 20th without a close date: dated the 20th.
    world.change(deal(1, { amount_cents: 1_000_000, close_date: '2026-04-10', won_at: '2026-04-20T09:00:00.000Z' }));
    world.change(deal(2, { amount_cents: 2_000_000, close_date: null, won_at: '2026-04-20T09:00:00.000Z' }));
    const paid = world.ledger.live().map((row) => {
      const step = row.trace.steps.find((candidate) => candidate.type === 'override');
      return [
        row.trace.deal?.external_id,
        step?.type === 'override' ? step.manager_external_id : null,
        step?.type === 'override' ? step.as_of : null,
        row.amount_cents,
      ];
    });
    assert.deepEqual(paid.sort(), [
      ['opp-1', 'mgr-001', '2026-04-10', 50_000],
      ['opp-2', 'mgr-002', '2026-04-20', 100_000],
    ]);
  });
});
