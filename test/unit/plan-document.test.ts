import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { evaluateCondition } from '../../src/domain/earnings/conditions.ts';
import type { DealSnapshot } from '../../src/domain/earnings/types.ts';
import { planDocumentHtml } from '../../src/domain/plans/document/html.ts';
import { type PlanDocumentInput, planDocument } from '../../src/domain/plans/document/model.ts';
import { planDocumentPdf } from '../../src/domain/plans/document/pdf.ts';
import { repQuotaSource } from '../../src/domain/plans/document/repQuota.ts';
import { solveCondition, withFields } from '../../src/domain/plans/document/sampleDeals.ts';
import { readPlanFile } from '../../src/domain/plans/planFile.ts';
import type { Condition, PlanDefinition } from '../../src/domain/plans/types.ts';

// Plan documents as pure data: sample deals that meet (or fail) a chip's condition, worked examples for every feature
// a plan can have, the quota seam, and the HTML page's escaping. That the figures are what Quotient pays is checked
// end to end in test/integration/plan-documents.test.ts.

function plan(text: string): PlanDefinition {
  const read = readPlanFile(text);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  return read.plan;
}

function input(definition: PlanDefinition, extra: Partial<PlanDocumentInput> = {}): PlanDocumentInput {
  return {
    plan: definition,
    plan_id: 'plan_01kjsj7s80fmtryrzh7j1q721q',
    version_id: 'pv_01kn40wx00ekj8fq0eg5srs2ry',
    version_number: 3,
    applied_at: new Date('2026-05-04T10:00:00Z'),
    currency: 'USD',
    won_stage: 'closed_won',
    ...extra,
  };
}

const base: DealSnapshot = {
  id: 'deal_sample',
  external_id: 'sample',
  amount_cents: 1_000_000,
  stage: 'closed_won',
  close_date: '2026-05-10',
  owner_external_id: 'you',
  status: 'won',
  custom: {},
  won_at: '2026-05-10T12:00:00.000Z',
};

describe('sample deals for a condition', () => {
  const conditions: Condition[] = [
    { field: 'custom.region', op: 'eq', value: 'EMEA' },
    { field: 'custom.region', op: 'ne', value: 'EMEA' },
    { field: 'custom.region', op: 'in', value: ['EMEA', 'NA'] },
    { field: 'custom.region', op: 'nin', value: ['EMEA', 'NA'] },
    { field: 'custom.seats', op: 'gt', value: 10 },
    { field: 'custom.seats', op: 'gte', value: 10 },
    { field: 'custom.seats', op: 'lt', value: 10 },
    { field: 'custom.seats', op: 'lte', value: 10 },
    { field: 'custom.signed_on', op: 'gte', value: '2026-01-01' },
    { field: 'custom.partner', op: 'exists' },
    { field: 'custom.tags', op: 'contains', value: 'renewal' },
    { field: 'custom.new_logo', op: 'eq', value: true },
    { field: 'amount_cents', op: 'gte', value: 5_000_000 },
    { field: 'stage', op: 'in', value: ['closed_won', 'won_paid'] },
    {
      all: [
        { field: 'custom.term_months', op: 'gte', value: 24 },
        { not: { field: 'custom.segment', op: 'eq', value: 'SMB' } },
      ],
    },
    {
      any: [
        { field: 'custom.region', op: 'eq', value: 'APAC' },
        { field: 'custom.seats', op: 'gt', value: 100 },
      ],
    },
  ];
  for (const condition of conditions) {
    test(`meets and fails ${JSON.stringify(condition)}`, () => {
      for (const want of [true, false]) {
        const fields = solveCondition(condition, want, new Map(), base);
        assert.ok(fields, `solved for ${want}`);
        assert.equal(evaluateCondition(condition, withFields(base, fields)).result, want);
      }
    });
  }

  test('two conditions that cannot hold together: the first is kept, the second reported unsolvable', () => {
    const first = solveCondition({ field: 'custom.region', op: 'eq', value: 'EMEA' }, true, new Map(), base);
    assert.ok(first);
    assert.equal(solveCondition({ field: 'custom.region', op: 'eq', value: 'NA' }, true, first, base), null);
  });
});

const CORE = `
key: core-ae
name: Core AE plan
period: monthly
quota_cents: 10000000
assignees: all
chips:
  - { key: base, name: Base commission, kind: commission, rate_bps: 1000, when: { field: custom.region, op: in, value: [EMEA, NA] } }
  - key: accelerator
    name: Accelerator over quota
    kind: tiered_commission
    mode: marginal
    tiers:
      - { up_to_pct: 100, rate_bps: 0 }
      - { up_to_pct: 150, rate_bps: 500 }
      - { up_to_pct: null, rate_bps: 800 }
  - { key: quota-bonus, name: Quota bonus, kind: attainment_bonus, threshold_pct: 100, amount_cents: 200000 }
`;

describe('the document of a plan version', () => {
  test('says what each chip pays, with its condition and tier table', () => {
    const document = planDocument(input(plan(CORE)));
    assert.equal(document.title, 'Core AE plan');
    assert.equal(document.subtitle, 'Plan core-ae, version 3, applied 2026-05-04');
    assert.deepEqual(
      document.chips.map((chip) => [chip.name, chip.pays, chip.applies_when]),
      [
        ['Base commission', '10.00% of the deal amount.', "the deal's region is one of EMEA, NA"],
        ['Accelerator over quota', 'A rate by band of your running total of won deals in the period.', null],
        [
          'Quota bonus',
          'A bonus of 2,000.00 once your won deals in a period reach 100% of quota (100,000.00), once per period.',
          null,
        ],
      ],
    );
    assert.deepEqual(document.chips[1]?.tiers, [
      { band: 1, from: '0.00', to: '100,000.00 (100% of quota)', rate: '0.00%' },
      { band: 2, from: '100,000.00 (100% of quota)', to: '150,000.00 (150% of quota)', rate: '5.00%' },
      { band: 3, from: '150,000.00 (150% of quota)', to: 'and above', rate: '8.00%' },
    ]);
  });

  test('tiers per deal say that every deal climbs the bands from zero, and the example pays each deal so', () => {
    const perDeal = plan(`
key: steps
name: Steps per deal
period: quarterly
assignees: all
chips:
  - key: steps
    name: Steps
    kind: tiered_commission
    mode: marginal
    basis: per_deal
    tiers:
      - { up_to_cents: 100000, rate_bps: 100 }
      - { up_to_cents: 300000, rate_bps: 200 }
      - { up_to_cents: 800000, rate_bps: 300 }
      - { up_to_cents: null, rate_bps: 500 }
`);
    const document = planDocument(input(perDeal));
    assert.deepEqual(
      [document.chips[0]?.pays, document.chips[0]?.tier_mode],
      [
        'A rate by band of each won deal’s own amount: every deal climbs the bands from zero, whatever else you won in the period.',
        'Marginal, per deal: each part of the deal’s amount is paid at the rate of the band it falls in.',
      ],
    );
    const period = document.examples.find((example) => example.key === 'period');
    assert.ok(period && period.lines.length > 1);
    for (const line of period.lines) {
      const sample = period.deals.find((each) => each.external_id === line.deal_external_id);
      assert.ok(sample);
      // Each deal on its own: 1% to 1,000.00, 2% to 3,000.00, 3% to 8,000.00, 5% above, rounded once.
      const amount: number = sample.amount_cents;
      const slices: Array<[number, number]> = [
        [Math.min(amount, 100_000), 100],
        [Math.max(0, Math.min(amount, 300_000) - 100_000), 200],
        [Math.max(0, Math.min(amount, 800_000) - 300_000), 300],
        [Math.max(0, amount - 800_000), 500],
      ];
      const exact = slices.reduce((sum, [slice, bps]) => sum + (slice * bps) / 10_000, 0);
      assert.equal(line.amount_cents, Math.round(exact));
    }
  });

  test('the period example walks past every band and threshold, in the period the version was applied', () => {
    const document = planDocument(input(plan(CORE)));
    const period = document.examples.find((example) => example.key === 'period');
    assert.ok(period);
    assert.equal(period.period_id, '2026-05');
    const total = period.deals.reduce((sum, deal) => sum + deal.amount_cents, 0);
    assert.ok(period.deals[0] && period.deals[0].amount_cents < 10_000_000);
    assert.ok(total > 15_000_000, `total ${total}`);
    const paying = new Set(period.lines.map((line) => line.chip_key));
    assert.deepEqual([...paying].sort(), ['accelerator', 'base', 'quota-bonus']);
    assert.equal(
      period.total_cents,
      period.lines.reduce((sum, line) => sum + line.amount_cents, 0),
    );
    for (const line of period.lines) assert.ok(line.explanation.length > 0);
  });

  test('a deal outside the conditions shows the conditional chip paying nothing', () => {
    const outside = planDocument(input(plan(CORE))).examples.find((example) => example.key === 'outside');
    assert.ok(outside);
    assert.ok(outside.silent_chips.includes('Base commission'));
    assert.ok(!outside.lines.some((line) => line.chip_key === 'base'));
  });

  test('caps, draws, splits and overrides each get their example', () => {
    const document = planDocument(
      input(
        plan(`
key: everything
name: Everything plan
period: quarterly
quota_cents: 30000000
cap_cents: 5000000
draw: { amount_cents: 600000, recoverable: false }
assignees: all
chips:
  - { key: base, name: Base, kind: commission, rate_bps: 1000, deal_cap_cents: 1000000 }
  - { key: override, name: Override, kind: override, rate_bps: 300 }
`),
      ),
    );
    const byKey = new Map(document.examples.map((example) => [example.key, example]));
    assert.deepEqual([...byKey.keys()], ['period', 'capped', 'quiet', 'split', 'override']);
    assert.ok(byKey.get('capped')?.lines.some((line) => line.chip_key === 'base' && line.amount_cents === 1_000_000));
    const quiet = byKey.get('quiet');
    const draw = quiet?.lines.find((line) => line.chip_key === '$draw');
    const base = quiet?.lines.find((line) => line.chip_key === 'base');
    assert.ok(draw && base);
    assert.equal(draw.amount_cents + base.amount_cents, 600_000);
    const split = byKey.get('split');
    assert.equal(split?.deals[0]?.details, 'split you 60%, colleague 40%');
    assert.equal(split?.lines.find((line) => line.chip_key === 'base')?.amount_cents, 900_000);
    const override = byKey.get('override');
    assert.deepEqual(override?.reports, ['your-report']);
    assert.equal(override?.deals[0]?.owner_external_id, 'your-report');
    assert.equal(override?.lines.find((line) => line.chip_key === 'override')?.amount_cents, 450_000);
    assert.deepEqual(document.plan_limits.length, 2);
    assert.match(document.overrides ?? '', /override/i);
  });

  test('a chip paid on cash says in plain words what is held and when it is paid', () => {
    const document = planDocument(
      input(
        plan(`
key: cash
name: Cash plan
assignees: all
chips:
  - key: base
    name: Base
    kind: commission
    rate_bps: 1000
    payable_on: cash
    cash: { held_pct: 40, release: first_payment }
  - { key: spiff, name: SPIFF, kind: flat, amount_cents: 50000, payable_on: cash }
`),
      ),
    );
    const [base, spiff] = document.chips;
    assert.ok(
      base?.limits.includes(
        '60% of it is paid when the deal is won; the other 40% is paid when the customer makes a first payment, in the period the payment arrives. If the deal is lost or reopened, what was paid is taken back.',
      ),
    );
    assert.ok(
      spiff?.limits.includes(
        "It is paid as the customer pays, in proportion to what each payment pays of the deal's amount, in the period the payment arrives. If the deal is lost or reopened, what was paid is taken back.",
      ),
    );
  });

  test('a quota source replaces the plan quota in the tiers and the examples, and says where it came from', () => {
    const definition = plan(CORE);
    const ramped = planDocument(
      input(definition, {
        quota: {
          quota_cents: 5_000_000,
          source: 'quota 50,000.00: ramp month 2 of 4, 50% of 100,000.00',
          ramp_pct: [25, 50, 75, 100],
        },
        rep_external_id: 'rep-017',
      }),
    );
    assert.equal(ramped.quota.amount, '50,000.00');
    assert.equal(ramped.quota.source, 'quota 50,000.00: ramp month 2 of 4, 50% of 100,000.00');
    assert.equal(
      ramped.quota.ramp,
      'Ramp from your start date: month 1 25%, month 2 50%, month 3 75%, month 4 100% of full quota.',
    );
    assert.equal(ramped.chips[1]?.tiers?.[0]?.to, '50,000.00 (100% of quota)');
    assert.match(ramped.subtitle, /for rep-017$/);
    const plain = planDocument(input(definition));
    assert.equal(plain.quota.source, "The plan's quota, 100,000.00 per month, the same for every rep.");
    assert.notDeepEqual(
      ramped.examples[0]?.deals.map((deal) => deal.amount_cents),
      plain.examples[0]?.deals.map((deal) => deal.amount_cents),
    );
  });

  test('a plan without quota or tiers still has examples, and the same input gives the same document', () => {
    const definition = plan(`
key: flat
name: Flat plan
period: monthly
assignees: all
chips:
  - { key: spiff, name: SPIFF, kind: flat, amount_cents: 25000 }
`);
    const document = planDocument(input(definition));
    assert.equal(document.quota.amount, null);
    assert.equal(document.examples[0]?.lines.length, 2);
    assert.deepEqual(planDocument(input(definition)), document);
  });

  test('amounts are in the plan currency’s decimals', () => {
    const document = planDocument(
      input(
        plan(`
key: yen
name: Yen plan
period: monthly
currency: JPY
quota_cents: 10000000
assignees: all
chips:
  - { key: base, name: Base, kind: commission, rate_bps: 1000 }
`),
        { currency: 'JPY' },
      ),
    );
    assert.equal(document.facts.find((fact) => fact.label === 'Quota')?.value, '10,000,000');
  });
});

describe("a rep's own quota in the document", () => {
  // Applied 2026-05-04: the document's year is 2026-05 .. 2027-04; the rep started 2026-04-20 on a 4-month ramp.
  const definition = { ...plan(CORE), ramp: [25, 50, 75, 100] };
  const quotas = {
    start_date: '2026-04-20',
    entries: [
      { from: '2026-01-01', quota_cents: 12_000_000 },
      { from: '2026-09-01', quota_cents: 15_000_000 },
      { from: '2027-01-01', quota_cents: null },
    ],
  };

  test('each period of the year has the quota table figure, ramped by month since the start date', () => {
    const source = repQuotaSource(definition, quotas, '2026-05', 'USD');
    assert.deepEqual(
      source.periods?.map((period) => [period.period_id, period.quota_cents]),
      [
        ['2026-05', 6_000_000], // ramp month 2: 50% of 120,000.00
        ['2026-06', 9_000_000], // month 3: 75%
        ['2026-07', 12_000_000], // month 4: 100%
        ['2026-08', 12_000_000],
        ['2026-09', 15_000_000], // the table's next entry
        ['2026-10', 15_000_000],
        ['2026-11', 15_000_000],
        ['2026-12', 15_000_000],
        ['2027-01', 10_000_000], // back to the plan's quota
        ['2027-02', 10_000_000],
        ['2027-03', 10_000_000],
        ['2027-04', 10_000_000],
      ],
    );
    assert.equal(
      source.periods?.[0]?.explanation,
      'quota 60,000.00: ramp month 2 of 4, 50% of 120,000.00, the quota set for this rep from 2026-01-01; the rep started on 2026-04-20.',
    );
    assert.equal(source.periods?.[8]?.explanation, 'quota 100,000.00: plan quota.');
    assert.equal(source.quota_cents, 6_000_000);
    assert.deepEqual(source.ramp_pct, [25, 50, 75, 100]);
    assert.equal(source.start_date, '2026-04-20');
  });

  test('the document shows the figures in its model, HTML and PDF, and the tiers use the first period’s quota', () => {
    const document = planDocument(
      input(definition, { quota: repQuotaSource(definition, quotas, '2026-05', 'USD'), rep_external_id: 'rep-017' }),
    );
    assert.equal(document.quota.amount, '60,000.00');
    assert.match(
      document.quota.source,
      /^Your quota for 2026-05, the period of the worked examples: quota 60,000\.00: ramp month 2 of 4/,
    );
    assert.equal(
      document.quota.ramp,
      'Ramp from your start date (2026-04-20): month 1 25%, month 2 50%, month 3 75%, month 4 100% of full quota.',
    );
    assert.equal(document.quota.start_date, '2026-04-20');
    assert.deepEqual(document.quota.periods.slice(0, 2), [
      {
        period_id: '2026-05',
        quota_cents: 6_000_000,
        amount: '60,000.00',
        source:
          'quota 60,000.00: ramp month 2 of 4, 50% of 120,000.00, the quota set for this rep from 2026-01-01; the rep started on 2026-04-20.',
      },
      {
        period_id: '2026-06',
        quota_cents: 9_000_000,
        amount: '90,000.00',
        source:
          'quota 90,000.00: ramp month 3 of 4, 75% of 120,000.00, the quota set for this rep from 2026-01-01; the rep started on 2026-04-20.',
      },
    ]);
    assert.equal(document.chips[1]?.tiers?.[0]?.to, '60,000.00 (100% of quota)');
    const html = planDocumentHtml(document);
    assert.match(html, /<th scope="col">Period<\/th><th scope="col" class="money">Quota<\/th>/);
    assert.match(
      html,
      /<tr><td>2026-06<\/td><td class="money">90,000\.00<\/td><td>quota 90,000\.00: ramp month 3 of 4/,
    );
    assert.match(html, /<tr><td>2026-09<\/td><td class="money">150,000\.00<\/td>/);
    const pdf = planDocumentPdf(document, new Date('2026-05-05T00:00:00Z'));
    const table = pdf.blocks.find(
      (block) => block.kind === 'table' && block.columns.some((column) => column.header === 'Where it comes from'),
    );
    assert.ok(table && table.kind === 'table');
    assert.deepEqual(table.rows[1]?.slice(0, 2), ['2026-06', '90,000.00']);
    assert.equal(table.rows.length, 12);
  });

  test('a rep without a quota of their own: the plan quota in every period, a plain sentence, no ramp', () => {
    const source = repQuotaSource(plan(CORE), { start_date: null, entries: [] }, '2026-05', 'USD');
    assert.deepEqual(new Set(source.periods?.map((period) => period.quota_cents)), new Set([10_000_000]));
    assert.equal(source.ramp_pct, undefined);
    const document = planDocument(input(plan(CORE), { quota: source }));
    assert.match(document.quota.source, /^The plan's quota; no quota of your own is set under this plan\./);
    assert.equal(document.quota.ramp, null);
    assert.deepEqual(planDocument(input(plan(CORE))).quota.periods, []);
  });

  test('a quarterly plan lists four quarters', () => {
    const quarterly = { ...plan(CORE), period: 'quarterly' as const };
    const source = repQuotaSource(quarterly, { start_date: null, entries: [] }, '2026-Q2', 'USD');
    assert.deepEqual(
      source.periods?.map((period) => period.period_id),
      ['2026-Q2', '2026-Q3', '2026-Q4', '2027-Q1'],
    );
  });
});

describe('the HTML page', () => {
  test('escapes what plan files name and holds no script', () => {
    const definition = plan(CORE);
    const html = planDocumentHtml(
      planDocument(
        input({
          ...definition,
          name: '<script>alert(1)</script> & "plan"',
          chips: definition.chips.map((chip) => ({ ...chip, name: `<b>${chip.name}</b>` })),
        }),
      ),
    );
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /<b>/);
    assert.match(html, /<h1>&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &quot;plan&quot;<\/h1>/);
    assert.match(html, /<h3>&lt;b&gt;Accelerator over quota&lt;\/b&gt;<\/h3>/);
  });
});

describe('a document a rep can read', () => {
  test('names deal fields in words and ends every explanation sentence, so the PDF does not run them together', () => {
    const document = planDocument(input(plan(CORE)));
    const sentences = document.examples.flatMap((example) => example.lines.flatMap((line) => line.explanation));
    assert.ok(sentences.length > 0);
    for (const sentence of sentences) {
      assert.match(sentence, /^[A-Z0-9].*[.!?:]$/);
      assert.doesNotMatch(sentence, /custom\.|amount_cents/);
    }
    const details = document.examples.flatMap((example) => example.deals.map((deal) => deal.details));
    assert.ok(details.some((detail) => detail.includes('region: EMEA')));
  });

  test('a document for no rep says the quota is the same for every rep only when it is', () => {
    const definition = { ...plan(CORE), ramp: [25, 50, 75, 100] };
    const ramped = planDocument(input(definition));
    assert.doesNotMatch(ramped.quota.source, /same for every rep/);
    assert.equal(
      ramped.quota.ramp,
      "Ramp from each rep's start date: month 1 25%, month 2 50%, month 3 75%, month 4 100% of full quota; a rep without a start date is not ramped.",
    );
    const own = planDocument(input(plan(CORE), { reps_with_own_quota: 2 }));
    assert.match(own.quota.source, /2 reps have a quota of their own under this plan/);
    assert.doesNotMatch(own.quota.source, /same for every rep/);
  });

  test("the rep's display name heads the document, and the org's terms are its last section", () => {
    const document = planDocument(
      input(plan(CORE), {
        rep_external_id: 'rep-017',
        rep_display_name: 'Dana Reyes',
        terms: {
          clawback: 'Paid commission on a deal refunded within 90 days is taken back.',
          leaver: '',
          governing: 'A.\n\nB.',
        },
      }),
    );
    assert.match(document.subtitle, /for Dana Reyes$/);
    assert.deepEqual(document.terms, [
      {
        key: 'clawback',
        title: 'Clawback',
        paragraphs: ['Paid commission on a deal refunded within 90 days is taken back.'],
      },
      { key: 'governing', title: 'Governing terms', paragraphs: ['A.', 'B.'] },
    ]);
    assert.match(planDocumentHtml(document), /<h3>Clawback<\/h3>/);
    assert.equal(planDocument(input(plan(CORE))).terms, undefined);
  });
});
