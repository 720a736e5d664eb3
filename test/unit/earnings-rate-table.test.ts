import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { DealSnapshot, EngineChip, EnginePlanVersion, LineTarget } from '../../src/domain/earnings/types.ts';
import { planDocument as documentOf } from '../../src/domain/plans/document/model.ts';
import { readPlanFile, validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import { chip, deal, plan, rep, testId } from '../factories/earnings.ts';
import { planDocument } from '../factories/plans.ts';
import { assertTargetTracesValid } from '../helpers/earningTraceSchema.ts';
import { tableRows, workedExamples } from '../helpers/workedExamples.ts';

// Rate tables whose bands hold an amount for filling them, paid in proportion to the part filled
// (docs/plan-features.md, Rate tables): the worked example is Oracle Incentive Compensation's interpolated-rate
// example, the six transactions of its step example against 10.00, 40.00, 100.00 and 2,000.00 for filling the bands.

const section = workedExamples('plan-features.md');
const cents = (money: string) => Math.round(Number(money.replaceAll('*', '').replaceAll(',', '')) * 100);

function pageChip(): EngineChip {
  const read = readPlanFile(section('rate-table'));
  assert.ok(read.ok, JSON.stringify(read.ok ? null : read.problems));
  const [table] = read.plan.chips;
  assert.ok(table?.kind === 'tiered_commission');
  return { ...table, id: testId('chip', 40), version: '1' } as EngineChip;
}

/** The same table over the period's running total: the page's chip without `basis: per_deal`. */
function cumulativeOf(perDeal: EngineChip): EngineChip {
  const { basis: _basis, ...params } = perDeal.params as unknown as Record<string, unknown>;
  return { ...perDeal, params } as unknown as EngineChip;
}

function linesOf(tableChip: EngineChip, subject: DealSnapshot[], overrides: Partial<EnginePlanVersion> = {}) {
  const evaluation = evaluateLines({
    plan: plan({ period: 'quarterly', chips: [tableChip], ...overrides }),
    rep,
    deals: subject,
    periods: [],
    today: '2026-04-25',
  });
  assert.deepEqual(evaluation.problems, []);
  assertTargetTracesValid(evaluation.targets);
  return subject.map((each) => {
    const found = evaluation.targets.find((target) => target.line.deal_id === each.id);
    assert.ok(found);
    return found;
  });
}

const earned = (lines: LineTarget[]) => lines.map((line) => line.earned_cents);
const total = (lines: LineTarget[]) => lines.reduce((sum, line) => sum + line.earned_cents, 0);
const wonOn = (n: number, day: string, amount: number) =>
  deal(n, { amount_cents: amount, close_date: day, won_at: `${day}T12:00:00.000Z` });

describe('docs/plan-features.md, Rate tables', () => {
  test('the worked example: per deal pays Oracle’s 149.00, cumulative 433.33, each deal the page’s figure', () => {
    const perDealChip = pageChip();
    const cumulativeChip = cumulativeOf(perDealChip);
    const rows = tableRows(section('rate-table-figures'));
    const dealRows = rows.filter((cells) => cells[0] !== '');
    const pageDeals = dealRows.map(([, day, amount], index) => wonOn(index + 1, day ?? '', cents(amount ?? '')));
    const perDeal = linesOf(perDealChip, pageDeals);
    const cumulative = linesOf(cumulativeChip, pageDeals);
    assert.deepEqual(
      earned(perDeal),
      dealRows.map((cells) => cents(cells[4] ?? '')),
    );
    assert.deepEqual(
      earned(cumulative),
      dealRows.map((cells) => cents(cells[6] ?? '')),
    );
    const totals = rows.find((cells) => cells[0] === '');
    assert.deepEqual([total(perDeal), total(cumulative)], [cents(totals?.[4] ?? ''), cents(totals?.[6] ?? '')]);
    assert.deepEqual([total(perDeal), total(cumulative)], [14_900, 43_333]);
  });

  test('the trace gives each band’s share, to a millionth of a cent, and the line is rounded once', () => {
    const cumulativeChip = cumulativeOf(pageChip());
    const history = [wonOn(1, '2026-01-10', 520_000), wonOn(2, '2026-02-10', 450_000)];
    const last = linesOf(cumulativeChip, history)[1] as LineTarget;
    const shares = last.trace.steps.flatMap((step) =>
      step.type === 'proportional_tier'
        ? [[step.band, step.slice_cents, step.band_amount_cents, step.exact_cents]]
        : [],
    );
    assert.deepEqual(shares, [
      [3, 280_000, 10_000, '5600'],
      [4, 170_000, 200_000, '28333.333333'],
    ]);
    assert.ok(last.trace.steps.some((step) => step.type === 'rounding' && step.rounded_cents === 33_933));
    assert.ok(
      last.trace.explanation.includes(
        'Band 4 (8,000.00 to 20,000.00) pays 2,000.00 for being filled; this deal fills 1,700.00 of its 12,000.00, so it earns that part of the amount: 2,000.00 × 1,700.00 / 12,000.00 = 283.33333333',
      ),
    );
  });

  test('a deal ending on a bound fills the lower band only; past the last bound it earns nothing more', () => {
    const [exact, past] = linesOf(pageChip(), [wonOn(1, '2026-01-10', 100_000), wonOn(2, '2026-01-11', 2_500_000)]);
    assert.equal(exact?.earned_cents, 1_000);
    assert.deepEqual(
      exact?.trace.steps.flatMap((step) => (step.type === 'proportional_tier' ? [step.band] : [])),
      [1],
    );
    assert.equal(past?.earned_cents, 1_000 + 4_000 + 10_000 + 200_000);
    assert.ok(
      past?.trace.explanation.includes(
        'The table ends at 20,000.00: the 5,000.00 beyond it fills no band, so it earns nothing more.',
      ),
    );
  });

  test('a split deal fills the table on each rep’s credited part', () => {
    const split = deal(9, {
      amount_cents: 200_000,
      close_date: '2026-03-01',
      won_at: '2026-03-01T12:00:00.000Z',
      splits: [
        { owner_external_id: rep.external_id, share_bps: 5000 },
        { owner_external_id: 'rep-099', share_bps: 5000 },
      ],
    });
    // 1,000.00 credited: band 1 filled, 10.00.
    assert.equal(linesOf(pageChip(), [split])[0]?.earned_cents, 1_000);
  });

  test('bands in percent of a quota of 0 fill nothing: the table pays 0 and says why', () => {
    const inPct = chip(41, {
      key: 'pct-table',
      name: 'Table in percent of quota',
      kind: 'tiered_commission',
      when: null,
      params: {
        mode: 'marginal',
        tiers: [
          { up_to_pct: 50, amount_cents: 100_000 },
          { up_to_pct: 100, amount_cents: 300_000 },
        ],
      },
    });
    const [zero] = linesOf(inPct, [wonOn(1, '2026-01-10', 1_000_000)], { quota_cents: 0 });
    assert.equal(zero?.earned_cents, 0);
    assert.ok(zero?.trace.explanation.some((sentence) => sentence.includes('fills no band of the table')));
    // Quota 10,000.00: the deal fills 5,000.00 → 1,000.00 and half of 5,000.00 → 10,000.00: 1,000.00 + 3,000.00.
    const [full] = linesOf(inPct, [wonOn(1, '2026-01-10', 1_000_000)], { quota_cents: 1_000_000 });
    assert.equal(full?.earned_cents, 400_000);
  });

  test('the plan document shows each band’s amount and says how a table of amounts pays', () => {
    const read = readPlanFile(section('rate-table'));
    assert.ok(read.ok);
    const document = documentOf({
      plan: read.plan,
      plan_id: 'plan_01kjsj7s80fmtryrzh7j1q721q',
      version_id: 'pv_01kn40wx00ekj8fq0eg5srs2ry',
      version_number: 1,
      applied_at: new Date('2026-01-04T10:00:00Z'),
      currency: 'USD',
      won_stage: 'closed_won',
    });
    const table = document.chips[0];
    assert.equal(table?.tiers?.[1]?.rate, '40.00 for the whole band, in proportion');
    assert.ok(table?.pays.startsWith('A table of amounts by band of each won deal’s own amount'));
    assert.equal(
      table?.tier_mode,
      'Proportional (interpolated) within each band; nothing more is paid above 20,000.00.',
    );
  });
});

describe('the plan file', () => {
  const file = (chipOverrides: Record<string, unknown>) =>
    planDocument({
      chips: [
        {
          key: 'table',
          name: 'Table',
          kind: 'tiered_commission',
          mode: 'marginal',
          tiers: [
            { up_to_cents: 100_000, amount_cents: 1_000 },
            { up_to_cents: 300_000, amount_cents: 4_000 },
          ],
          ...chipOverrides,
        },
      ],
    });
  const pathsOf = (document: unknown) => {
    const result = validatePlanDocument(document);
    return result.ok ? [] : result.problems.map((problem) => problem.path);
  };

  test('a table of amounts with bounded bands is kept as written', () => {
    const result = validatePlanDocument(file({}));
    assert.ok(result.ok, JSON.stringify(result.ok ? null : result.problems));
    const params = result.plan.chips[0]?.params as unknown as { tiers: unknown[] };
    assert.deepEqual(params.tiers[1], { up_to_cents: 300_000, amount_cents: 4_000 });
  });

  test.each([
    ['retroactive mode', { mode: 'retroactive' }, 'chips[0].mode'],
    [
      'an open last band',
      {
        tiers: [
          { up_to_cents: 100_000, amount_cents: 1_000 },
          { up_to_cents: null, amount_cents: 4_000 },
        ],
      },
      'chips[0].tiers[1].up_to_cents',
    ],
    [
      'a band with a rate beside bands with amounts',
      {
        tiers: [
          { up_to_cents: 100_000, amount_cents: 1_000 },
          { up_to_cents: 300_000, rate_bps: 100 },
        ],
      },
      'chips[0].tiers[1]',
    ],
    [
      'a band with both',
      { tiers: [{ up_to_cents: 100_000, amount_cents: 1_000, rate_bps: 100 }] },
      'chips[0].tiers[0].rate_bps',
    ],
    [
      'amounts on bands in deals',
      {
        tiers: [
          { up_to_deals: 3, amount_cents: 1_000 },
          { up_to_deals: 5, amount_cents: 2_000 },
        ],
      },
      'chips[0].tiers[0].up_to_deals',
    ],
    ['a band that pays nothing named', { tiers: [{ up_to_cents: 100_000 }] }, 'chips[0].tiers[0]'],
  ])('%s is refused with its path', (_name, overrides, path) => {
    assert.ok(pathsOf(file(overrides)).includes(path), JSON.stringify(pathsOf(file(overrides))));
  });
});
