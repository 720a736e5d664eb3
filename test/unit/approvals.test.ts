import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import {
  type ApprovalPolicy,
  type ApprovalSnapshot,
  type ApprovalStep,
  differenceOf,
  stateOf,
  stepFor,
} from '../../src/domain/approvals.ts';
import { Refusal } from '../../src/domain/refusal.ts';

// The approval rules, pure: the snapshot difference that resets an approval, and who may approve which step.

const snapshot = (rows: Array<[string, number]>, adjustments: Array<[string, number]> = []): ApprovalSnapshot => ({
  rows: rows.map(([line, amount_cents]) => ({ line, earning_id: `earn_${line}`, description: line, amount_cents })),
  adjustments: adjustments.map(([id, amount_cents]) => ({ id, description: id, amount_cents })),
  payable_cents: [...rows, ...adjustments].reduce((sum, [, cents]) => sum + cents, 0),
});

describe('the difference from what was approved', () => {
  test('none when the statement is what was approved, whatever its rows are called now', () => {
    const approved = snapshot([['a', 100]], [['adj_1', 5]]);
    const now = { ...approved, rows: approved.rows.map((row) => ({ ...row, earning_id: 'earn_new' })) };
    assert.equal(differenceOf(approved, now), null);
  });

  test('each row and adjustment that appeared, went or changed, with both totals', () => {
    const difference = differenceOf(
      snapshot([
        ['a', 100],
        ['b', 50],
      ]),
      snapshot(
        [
          ['a', 120],
          ['c', 10],
        ],
        [['adj_1', -5]],
      ),
    );
    assert.deepEqual(difference, {
      rows: [
        { line: 'a', description: 'a', approved_cents: 100, now_cents: 120 },
        { line: 'b', description: 'b', approved_cents: 50, now_cents: null },
        { line: 'c', description: 'c', approved_cents: null, now_cents: 10 },
      ],
      adjustments: [{ id: 'adj_1', description: 'adj_1', approved_cents: null, now_cents: -5 }],
      approved_payable_cents: 150,
      now_payable_cents: 125,
    });
  });

  test('is null exactly when nothing differs (random snapshots)', () => {
    const rows = fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.integer({ min: -1000, max: 1000 })), {
      maxLength: 4,
    });
    fc.assert(
      fc.property(rows, rows, (a, b) => {
        const left = snapshot([...new Map(a)]);
        const right = snapshot([...new Map(b)]);
        const same =
          JSON.stringify(left.rows.map((r) => [r.line, r.amount_cents]).sort()) ===
          JSON.stringify(right.rows.map((r) => [r.line, r.amount_cents]).sort());
        assert.equal(differenceOf(left, right) === null, same);
      }),
    );
  });
});

describe('who approves which step', () => {
  const base = {
    orgId: 'org_1',
    subjectUserId: 'user_rep',
    managerUserIds: ['user_mgr', 'user_vp'],
    periodId: '2026-04',
    periodStatus: 'open' as const,
    standing: new Set<ApprovalStep>(),
  };
  const rep = { kind: 'rep' as const, orgId: 'org_1', userId: 'user_rep' };
  const vp = { kind: 'rep' as const, orgId: 'org_1', userId: 'user_vp' };

  const cases: Array<[string, Partial<Parameters<typeof stepFor>[0]>, ApprovalStep | string]> = [
    ['the rep under rep', { policy: 'rep', principal: rep }, 'rep'],
    ['a manager two levels up under manager', { policy: 'manager', principal: vp }, 'manager'],
    ['the rep under manager', { policy: 'manager', principal: rep }, 'forbidden'],
    ['a manager under rep', { policy: 'rep', principal: vp }, 'forbidden'],
    ['a manager before the rep under rep_then_manager', { policy: 'rep_then_manager', principal: vp }, 'invalid_state'],
    [
      'a manager after the rep under rep_then_manager',
      { policy: 'rep_then_manager', principal: vp, standing: new Set<ApprovalStep>(['rep']) },
      'manager',
    ],
    ['another rep', { policy: 'rep', principal: { kind: 'rep', orgId: 'org_1', userId: 'user_other' } }, 'not_found'],
    [
      'a rep of another org',
      { policy: 'rep', principal: { kind: 'rep', orgId: 'org_2', userId: 'user_rep' } },
      'not_found',
    ],
    [
      'an admin',
      { policy: 'rep', principal: { kind: 'admin', orgId: 'org_1', adminId: 'adm_1', email: 'a@x' } },
      'forbidden',
    ],
    ['the rep under none', { policy: 'none', principal: rep }, 'invalid_state'],
    ['the rep of a locked period', { policy: 'rep', principal: rep, periodStatus: 'locked' }, 'invalid_state'],
  ];

  test.each(cases)('%s', (_name, overrides, outcome) => {
    const request = { ...base, policy: 'rep' as ApprovalPolicy, principal: rep, ...overrides };
    if (outcome === 'rep' || outcome === 'manager') {
      assert.equal(stepFor(request), outcome);
      return;
    }
    assert.throws(
      () => stepFor(request),
      (error: unknown) => error instanceof Refusal && error.code === outcome,
    );
  });

  test('the state is the first step not standing', () => {
    assert.equal(stateOf('none', new Set()), 'not_required');
    assert.equal(stateOf('rep_then_manager', new Set()), 'waiting_rep');
    assert.equal(stateOf('rep_then_manager', new Set(['rep'])), 'waiting_manager');
    assert.equal(stateOf('rep_then_manager', new Set(['rep', 'manager'])), 'approved');
    assert.equal(stateOf('manager', new Set(['rep'])), 'waiting_manager');
  });
});
