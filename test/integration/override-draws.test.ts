import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { externalId } from '../factories/deals.ts';
import { planDocument, planFile } from '../factories/plans.ts';
import { cliJson as cli } from '../helpers/cli.ts';
import { test } from '../helpers/fixtures.ts';

// A manager's draw counts the manager's overrides like any earnings (docs/plan-features.md): the lock settles it
// against commissions and overrides together, and a hierarchy change that moves an override of a locked period
// re-derives that period's draw, the difference booked in the next open period like the override's.

describe("a manager's draw", () => {
  test('counts the overrides at the lock, and is re-derived when a hierarchy change takes an override back', async ({
    org,
    client,
  }) => {
    const rep = `rep-${externalId()}`;
    const manager = `mgr-${externalId()}`;
    await cli([
      'plans',
      'apply',
      await planFile(
        planDocument({
          quota_cents: null,
          draw: { amount_cents: 300_000, recoverable: false },
          chips: [
            { key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 },
            { key: 'override', name: 'Manager override', kind: 'override', rate_bps: 1000 },
          ],
        }),
      ),
      '--org',
      org.id,
    ]);
    await cli(['users', 'set-manager', rep, manager, '--org', org.id, '--from', '2026-01-01']);
    // 10,000.00 won: the rep earns 1,000.00 of commission, the manager 1,000.00 of override.
    await client.deals.ingestEvent({
      external_id: externalId(),
      state: { amount_cents: 1_000_000, stage: 'closed_won', close_date: '2026-04-10', owner_external_id: rep },
    });
    await cli(['periods', 'lock', '2026-04', '--org', org.id]);

    const managerUser = await client.users.findByExternalId(manager);
    assert.ok(managerUser);
    const april = await client.statements.get(managerUser.id, '2026-04');
    assert.deepEqual(
      april.plans[0]?.lines.map((line) => [line.chip_kind, line.amount_cents]),
      [
        ['override', 100_000],
        ['draw', 200_000],
      ],
      'the draw tops the 1,000.00 override up to 3,000.00, not on top of it',
    );
    const payouts = new Map<string, { total_cents: number; draw_cents: number }>();
    for await (const payout of client.payouts.list({ period_id: '2026-04' }))
      payouts.set(payout.user_external_id, payout);
    assert.deepEqual(payouts.get(manager), { ...payouts.get(manager), total_cents: 300_000, draw_cents: 200_000 });

    // The rep had no manager after all: the override of locked April is taken back in May, and April's draw,
    // re-derived, pays the whole 3,000.00: the 1,000.00 difference is topped up in May beside the clawback.
    const cleared = await cli<{ recompute: { reps: number } }>([
      'users',
      'set-manager',
      rep,
      '--none',
      '--org',
      org.id,
      '--from',
      '2026-01-01',
    ]);
    assert.equal(cleared.recompute.reps, 1, 'the manager is recomputed though none of its rows is open');
    const may = await client.statements.get(managerUser.id, '2026-05');
    assert.deepEqual(
      may.plans[0]?.adjustments.map((row) => [row.chip_kind, row.amount_cents, row.from_period_id]),
      [
        ['override', -100_000, '2026-04'],
        ['draw', 100_000, '2026-04'],
      ],
    );
    assert.equal(may.payable_cents, 0);
  });
});
