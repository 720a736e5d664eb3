import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'vitest';
import { chipDefinitionDigest, planContentDigest } from '../../src/domain/plans/digests.ts';
import { describeProblem, readPlanFile, validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import type { PlanDefinition, PlanFileProblem } from '../../src/domain/plans/types.ts';
import { planDocument } from '../factories/plans.ts';

const EXAMPLE_YAML = readFileSync(new URL('../../examples/plans/core-ae.yaml', import.meta.url), 'utf8');

/** The example of product.md section 10, normalised. */
const EXAMPLE_PLAN: PlanDefinition = {
  key: 'core-ae',
  name: 'Core AE plan',
  period: 'monthly',
  quota_cents: 10000000,
  assignees: 'all',
  chips: [
    {
      key: 'base',
      name: 'Base commission',
      kind: 'commission',
      when: { field: 'custom.region', op: 'in', value: ['EMEA', 'NA'] },
      params: { rate_bps: 1000, base: 'amount_cents' },
    },
    {
      key: 'accelerator',
      name: 'Accelerator over quota',
      kind: 'tiered_commission',
      when: null,
      params: {
        mode: 'marginal',
        tiers: [
          { up_to_pct: 100, rate_bps: 0 },
          { up_to_pct: null, rate_bps: 500 },
        ],
      },
    },
    {
      key: 'new-logo',
      name: 'New logo SPIFF',
      kind: 'flat',
      when: { field: 'custom.new_logo', op: 'eq', value: true },
      params: { amount_cents: 50000 },
    },
    {
      key: 'quota-bonus',
      name: 'Quota attainment bonus',
      kind: 'attainment_bonus',
      when: null,
      params: { threshold_pct: 100, amount_cents: 200000 },
    },
  ],
};

type Doc = Record<string, unknown>;

/** The example as a plain document (the file's members, not the normalised form), to break one rule at a time. */
function exampleDocument(): Doc & { chips: Doc[] } {
  return planDocument({ key: 'core-ae' });
}

function chip(document: Doc & { chips: Doc[] }, index: number): Doc {
  return document.chips[index] as Doc;
}

function problemsOf(document: unknown): PlanFileProblem[] {
  const result = validatePlanDocument(document);
  assert.equal(result.ok, false, 'expected the document to be refused');
  return result.ok ? [] : result.problems;
}

/** Asserts exactly these problems, each given as path and a fragment of its message. */
function assertProblems(document: unknown, expected: Array<[path: string, message: RegExp]>): void {
  const problems = problemsOf(document);
  assert.deepEqual(
    problems.map((problem) => problem.path),
    expected.map(([path]) => path),
    `problems were: ${JSON.stringify(problems)}`,
  );
  expected.forEach(([, message], index) => {
    assert.match(problems[index]?.message ?? '', message);
  });
}

function withChange(change: (document: Doc & { chips: Doc[] }) => void): Doc {
  const document = exampleDocument();
  change(document);
  return document;
}

describe('plan files: reading and normalising', () => {
  test('the example file of product.md section 10 reads as the normalised plan', () => {
    assert.deepEqual(readPlanFile(EXAMPLE_YAML), { ok: true, plan: EXAMPLE_PLAN });
  });

  test('the same plan written as JSON reads as the same plan', () => {
    const result = readPlanFile(JSON.stringify(exampleDocument(), null, 2), { format: 'json' });
    assert.deepEqual(result, { ok: true, plan: EXAMPLE_PLAN });
  });

  test('the YAML reader also reads a JSON file', () => {
    assert.deepEqual(readPlanFile(JSON.stringify(exampleDocument())), { ok: true, plan: EXAMPLE_PLAN });
  });

  test('defaults are filled in: monthly, no quota, no condition, base amount_cents', () => {
    const result = readPlanFile(
      [
        'key: starter',
        'name: Starter',
        'assignees: all',
        'chips:',
        '  - {key: base, name: Base, kind: commission, rate_bps: 800}',
      ].join('\n'),
    );
    assert.deepEqual(result, {
      ok: true,
      plan: {
        key: 'starter',
        name: 'Starter',
        period: 'monthly',
        quota_cents: null,
        assignees: 'all',
        chips: [
          {
            key: 'base',
            name: 'Base',
            kind: 'commission',
            when: null,
            params: { rate_bps: 800, base: 'amount_cents' },
          },
        ],
      },
    });
  });

  test('members come out in one order whatever order the file uses, and assignees are sorted', () => {
    const result = validatePlanDocument({
      chips: [{ rate_bps: 100, kind: 'commission', base: 'custom.arr_cents', name: 'ARR', key: 'arr' }],
      assignees: ['rep-b', 'rep-a'],
      name: 'Named',
      key: 'named',
    });
    assert.equal(result.ok, true);
    if (!result.ok) return;
    assert.deepEqual(Object.keys(result.plan), ['key', 'name', 'period', 'quota_cents', 'assignees', 'chips']);
    assert.deepEqual(result.plan.assignees, ['rep-a', 'rep-b']);
    assert.deepEqual(Object.keys(result.plan.chips[0] ?? {}), ['key', 'name', 'kind', 'when', 'params']);
    assert.deepEqual(result.plan.chips[0]?.params, { rate_bps: 100, base: 'custom.arr_cents' });
  });

  test('a $schema member (for editors) is accepted and dropped', () => {
    const result = validatePlanDocument({ $schema: '../../schemas/plan-file.schema.json', ...exampleDocument() });
    assert.deepEqual(result, { ok: true, plan: EXAMPLE_PLAN });
  });

  test('conditions nest and keep their order', () => {
    const when = {
      all: [
        { field: 'amount_cents', op: 'gte', value: 1000000 },
        { any: [{ field: 'stage', op: 'contains', value: 'won' }, { not: { field: 'custom.partner', op: 'exists' } }] },
        { field: 'close_date', op: 'lt', value: '2026-07-01' },
        { field: 'status', op: 'in', value: ['won', 'open'] },
      ],
    };
    const result = validatePlanDocument(withChange((document) => Object.assign(chip(document, 0), { when })));
    assert.equal(result.ok, true, JSON.stringify(result));
    if (result.ok) assert.deepEqual(result.plan.chips[0]?.when, when);
  });

  test('tiers in cents, retroactive mode, and a plan without a quota', () => {
    const result = validatePlanDocument({
      key: 'smb',
      name: 'SMB',
      period: 'quarterly',
      assignees: ['rep-1'],
      chips: [
        {
          key: 'ladder',
          name: 'Ladder',
          kind: 'tiered_commission',
          mode: 'retroactive',
          tiers: [
            { up_to_cents: 5000000, rate_bps: 500 },
            { up_to_cents: 10000000, rate_bps: 800 },
            { up_to_cents: null, rate_bps: 1200 },
          ],
        },
      ],
    });
    assert.equal(result.ok, true, JSON.stringify(result));
  });
});

describe('plan files: digests', () => {
  const plan = (change: (document: Doc & { chips: Doc[] }) => void = () => {}) => {
    const result = validatePlanDocument(withChange(change));
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    return result.plan;
  };

  test('the content digest ignores formatting, member order, comments and assignee order', () => {
    const reordered = validatePlanDocument({ ...exampleDocument(), assignees: 'all' });
    assert.ok(reordered.ok);
    assert.equal(planContentDigest(reordered.plan), planContentDigest(EXAMPLE_PLAN));
    const a = plan((document) => Object.assign(document, { assignees: ['rep-a', 'rep-b'] }));
    const b = plan((document) => Object.assign(document, { assignees: ['rep-b', 'rep-a'] }));
    assert.equal(planContentDigest(a), planContentDigest(b));
    const explicitDefaults = plan((document) => Object.assign(chip(document, 0), { base: 'amount_cents' }));
    assert.equal(planContentDigest(explicitDefaults), planContentDigest(EXAMPLE_PLAN));
  });

  test('the content digest changes with any content, names included', () => {
    const base = planContentDigest(EXAMPLE_PLAN);
    assert.notEqual(planContentDigest(plan((document) => Object.assign(document, { name: 'Core AE 2026' }))), base);
    assert.notEqual(planContentDigest(plan((document) => Object.assign(chip(document, 2), { name: 'SPIFF' }))), base);
    assert.notEqual(planContentDigest(plan((document) => document.chips.reverse())), base);
  });

  test('a chip digest changes with its own definition only', () => {
    const before = EXAMPLE_PLAN;
    const after = plan((document) => Object.assign(chip(document, 0), { rate_bps: 1200 }));
    const digests = (p: PlanDefinition) => p.chips.map((c) => chipDefinitionDigest(p, c));
    const [baseBefore, ...othersBefore] = digests(before);
    const [baseAfter, ...othersAfter] = digests(after);
    assert.notEqual(baseAfter, baseBefore);
    assert.deepEqual(othersAfter, othersBefore);
  });

  test('renaming a chip leaves its digest alone; changing its condition does not', () => {
    const renamed = plan((document) => Object.assign(chip(document, 0), { name: 'Base' }));
    const recondition = plan((document) =>
      Object.assign(chip(document, 0), { when: { field: 'custom.region', op: 'eq', value: 'EMEA' } }),
    );
    const digestOfBase = (p: PlanDefinition) => chipDefinitionDigest(p, p.chips[0] as PlanDefinition['chips'][0]);
    assert.equal(digestOfBase(renamed), digestOfBase(EXAMPLE_PLAN));
    assert.notEqual(digestOfBase(recondition), digestOfBase(EXAMPLE_PLAN));
  });

  test('a new quota changes the digests of the chips that read it (percent bands, attainment) and no other', () => {
    const raised = plan((document) => Object.assign(document, { quota_cents: 12000000 }));
    const changed = EXAMPLE_PLAN.chips.map(
      (c, index) =>
        chipDefinitionDigest(EXAMPLE_PLAN, c) !== chipDefinitionDigest(raised, raised.chips[index] as typeof c),
    );
    assert.deepEqual(changed, [false, true, false, true]);
  });

  test('a new period length changes the digests of the period-cumulative chips only', () => {
    const quarterly = plan((document) => Object.assign(document, { period: 'quarterly' }));
    const changed = EXAMPLE_PLAN.chips.map(
      (c, index) =>
        chipDefinitionDigest(EXAMPLE_PLAN, c) !== chipDefinitionDigest(quarterly, quarterly.chips[index] as typeof c),
    );
    assert.deepEqual(changed, [false, true, false, true]);
  });
});

describe('plan files: the plan', () => {
  test('key, name, assignees and chips are required', () => {
    assertProblems({}, [
      ['key', /is required/],
      ['name', /is required/],
      ['assignees', /is required/],
      ['chips', /is required/],
    ]);
  });

  test('the file must be a mapping', () => {
    assertProblems(['key'], [['', /must be a mapping/]]);
    assertProblems(null, [['', /must be a mapping/]]);
  });

  test('an unknown member is named, with the member it probably meant', () => {
    assertProblems(
      withChange((document) => {
        document.quota = 5;
      }),
      [['quota', /did you mean quota_cents\?/]],
    );
  });

  test('the key is a slug', () => {
    for (const key of ['Core AE', 'core--ae', '-core', 'core_', '', 'x'.repeat(65)]) {
      assertProblems(
        withChange((document) => Object.assign(document, { key })),
        [['key', /must|lowercase/]],
      );
    }
  });

  test('the name must not be blank', () => {
    assertProblems(
      withChange((document) => Object.assign(document, { name: '   ' })),
      [['name', /must not be blank/]],
    );
  });

  test('the period is monthly or quarterly', () => {
    assertProblems(
      withChange((document) => Object.assign(document, { period: 'weekly' })),
      [['period', /must be one of: monthly, quarterly/]],
    );
  });

  test('the quota is a non-negative integer or null', () => {
    assertProblems(
      withChange((document) => Object.assign(document, { quota_cents: -1 })),
      [['quota_cents', /must be >= 0/]],
    );
    assertProblems(
      withChange((document) => Object.assign(document, { quota_cents: 10.5 })),
      [['quota_cents', /must be an integer or null/]],
    );
    assertProblems(
      withChange((document) => Object.assign(document, { quota_cents: '100000' })),
      [['quota_cents', /must be an integer or null/]],
    );
  });

  test('assignees are "all" or a non-empty list of distinct owner ids', () => {
    for (const assignees of ['everyone', 5, []]) {
      assertProblems(
        withChange((document) => Object.assign(document, { assignees })),
        [['assignees', /must be "all" or a non-empty list/]],
      );
    }
    assertProblems(
      withChange((document) => Object.assign(document, { assignees: ['rep-a', ''] })),
      [['assignees[1]', /must not be empty/]],
    );
    assertProblems(
      withChange((document) => Object.assign(document, { assignees: ['rep-a', 'rep-a'] })),
      [['assignees', /must not repeat a value/]],
    );
  });

  test('chips is a non-empty list of mappings', () => {
    assertProblems(
      withChange((document) => Object.assign(document, { chips: [] })),
      [['chips', /must not be empty/]],
    );
    assertProblems(
      withChange((document) => Object.assign(document, { chips: 'base' })),
      [['chips', /must be a list/]],
    );
    assertProblems(
      withChange((document) => document.chips.push('bonus' as unknown as Doc)),
      [['chips[4]', /must be a mapping/]],
    );
  });
});

describe('plan files: chips', () => {
  test('each chip needs key, name and kind', () => {
    assertProblems(
      withChange((document) => {
        document.chips[0] = { rate_bps: 1000 };
      }),
      [
        ['chips[0].key', /is required/],
        ['chips[0].name', /is required/],
        ['chips[0].kind', /is required/],
      ],
    );
  });

  test('chip keys are unique within the plan', () => {
    assertProblems(
      withChange((document) => Object.assign(chip(document, 2), { key: 'base' })),
      [['chips[2].key', /repeats the key of chips\[0\]/]],
    );
  });

  test('an unknown kind is named with the kinds there are', () => {
    assertProblems(
      withChange((document) => Object.assign(chip(document, 0), { kind: 'bonus' })),
      [['chips[0].kind', /must be one of: commission, tiered_commission, flat, attainment_bonus/]],
    );
  });

  test('a member of another kind is refused, with the likely intended one', () => {
    assertProblems(
      withChange((document) => {
        const base = chip(document, 0);
        delete base.rate_bps;
        base.rate_pbs = 1000;
      }),
      [
        ['chips[0].rate_bps', /is required/],
        ['chips[0].rate_pbs', /did you mean rate_bps\?/],
      ],
    );
    assertProblems(
      withChange((document) => Object.assign(chip(document, 2), { rate_bps: 100 })),
      [
        [
          'chips[2].rate_bps',
          /is not a known member here \(expected key, name, kind, when, amount_cents, cap_cents, deal_cap_cents, floor_cents, replaces, payable_on, cash\)/,
        ],
      ],
    );
  });

  test('commission: rate_bps is from 0 to 100000 with at most two decimals; base is amount_cents or custom.<field>', () => {
    assertProblems(
      withChange((document) => Object.assign(chip(document, 0), { rate_bps: 10.505 })),
      [['chips[0].rate_bps', /at most two decimals/]],
    );
    assertProblems(
      withChange((document) => Object.assign(chip(document, 0), { rate_bps: -1 })),
      [['chips[0].rate_bps', /must be >= 0/]],
    );
    assertProblems(
      withChange((document) => Object.assign(chip(document, 0), { rate_bps: 100001 })),
      [['chips[0].rate_bps', /must be <= 100000/]],
    );
    assertProblems(
      withChange((document) => Object.assign(chip(document, 0), { base: 'arr' })),
      [['chips[0].base', /must be amount_cents or custom.<field>/]],
    );
    assertProblems(
      withChange((document) => Object.assign(chip(document, 0), { base: 'custom.__proto__' })),
      [['chips[0].base', /reserved/]],
    );
  });

  test('tiered_commission: mode is marginal or retroactive; tiers are a non-empty list', () => {
    assertProblems(
      withChange((document) => Object.assign(chip(document, 1), { mode: 'progressive', tiers: [] })),
      [
        ['chips[1].mode', /must be one of: marginal, retroactive/],
        ['chips[1].tiers', /must not be empty/],
      ],
    );
  });

  test('a band has exactly one bound', () => {
    assertProblems(
      withChange((document) =>
        Object.assign(chip(document, 1), {
          tiers: [{ rate_bps: 0 }, { up_to_pct: null, up_to_cents: null, rate_bps: 500 }],
        }),
      ),
      [
        ['chips[1].tiers[0]', /needs exactly one bound/],
        ['chips[1].tiers[1]', /needs exactly one bound/],
      ],
    );
  });

  test('only the last band is open, and it must be', () => {
    assertProblems(
      withChange((document) =>
        Object.assign(chip(document, 1), {
          tiers: [
            { up_to_pct: null, rate_bps: 0 },
            { up_to_pct: 150, rate_bps: 500 },
          ],
        }),
      ),
      [
        ['chips[1].tiers[0].up_to_pct', /only the last band may be open/],
        ['chips[1].tiers[1].up_to_pct', /must be null: the last band is open/],
      ],
    );
  });

  test('bands strictly increase', () => {
    assertProblems(
      withChange((document) =>
        Object.assign(chip(document, 1), {
          tiers: [
            { up_to_pct: 100, rate_bps: 0 },
            { up_to_pct: 100, rate_bps: 300 },
            { up_to_pct: 90, rate_bps: 400 },
            { up_to_pct: null, rate_bps: 500 },
          ],
        }),
      ),
      [
        ['chips[1].tiers[1].up_to_pct', /must be greater than the previous band's bound \(100\)/],
        ['chips[1].tiers[2].up_to_pct', /must be greater than the previous band's bound \(100\)/],
      ],
    );
  });

  test('all bands of a chip use one unit', () => {
    assertProblems(
      withChange((document) =>
        Object.assign(chip(document, 1), {
          tiers: [
            { up_to_pct: 100, rate_bps: 0 },
            { up_to_cents: null, rate_bps: 500 },
          ],
        }),
      ),
      [['chips[1].tiers[1]', /uses up_to_cents but the first band uses up_to_pct/]],
    );
  });

  test('band bounds and rates are typed', () => {
    assertProblems(
      withChange((document) =>
        Object.assign(chip(document, 1), {
          tiers: [
            { up_to_pct: 0, rate_bps: 0 },
            { up_to_pct: null, rate_bps: '5%' },
          ],
        }),
      ),
      [
        ['chips[1].tiers[0].up_to_pct', /must be >= 1/],
        ['chips[1].tiers[1].rate_bps', /must be a number/],
      ],
    );
  });

  test('percent bands and attainment bonuses need a quota; a quota of 0 is one (read as 0% attainment)', () => {
    assertProblems(
      withChange((document) => {
        delete document.quota_cents;
      }),
      [
        ['chips[1].tiers', /up_to_pct bands are percentages of quota: set quota_cents/],
        ['chips[3].threshold_pct', /threshold_pct is a percentage of quota: set quota_cents/],
      ],
    );
    const zero = validatePlanDocument(withChange((document) => Object.assign(document, { quota_cents: 0 })));
    assert.ok(zero.ok, JSON.stringify(zero.ok ? null : zero.problems));
    assert.equal(zero.plan.quota_cents, 0);
  });

  test('flat: amount_cents is a non-negative integer', () => {
    assertProblems(
      withChange((document) => {
        delete chip(document, 2).amount_cents;
      }),
      [['chips[2].amount_cents', /is required/]],
    );
    assertProblems(
      withChange((document) => Object.assign(chip(document, 2), { amount_cents: -100 })),
      [['chips[2].amount_cents', /must be >= 0/]],
    );
  });

  test('attainment_bonus: threshold_pct is a whole percent from 1; amount_cents is required', () => {
    assertProblems(
      withChange((document) => {
        const bonus = chip(document, 3);
        bonus.threshold_pct = 99.5;
        delete bonus.amount_cents;
      }),
      [
        ['chips[3].amount_cents', /is required/],
        ['chips[3].threshold_pct', /must be an integer/],
      ],
    );
  });
});

describe('plan files: conditions', () => {
  const withWhen = (when: unknown) => withChange((document) => Object.assign(chip(document, 0), { when }));

  test('a condition is all, any, not or a comparison', () => {
    assertProblems(withWhen('region = EMEA'), [['chips[0].when', /must be a mapping/]]);
    assertProblems(withWhen({ all: [] }), [['chips[0].when.all', /must not be empty/]]);
    assertProblems(withWhen({ all: [{ field: 'stage', op: 'eq', value: 'won' }], any: [] }), [
      ['chips[0].when.any', /is not a known member here/],
    ]);
  });

  test('a comparison needs a known field and op', () => {
    assertProblems(withWhen({ field: 'region', op: 'equals', value: 'EMEA' }), [
      ['chips[0].when.field', /must be amount_cents, stage, close_date, owner_external_id, status or custom.<name>/],
      ['chips[0].when.op', /must be one of: eq, ne, in, nin, gt, gte, lt, lte, exists, contains/],
    ]);
    assertProblems(withWhen({ field: 'stage', value: 'won' }), [['chips[0].when.op', /is required/]]);
  });

  test('problems deep in nested conditions carry their whole path', () => {
    assertProblems(
      withWhen({
        all: [{ field: 'stage', op: 'eq', value: 'won' }, { any: [{ not: { field: 'custom.x', op: 'nope' } }] }],
      }),
      [['chips[0].when.all[1].any[0].not.op', /must be one of/]],
    );
  });

  test('values fit the operator', () => {
    assertProblems(withWhen({ field: 'stage', op: 'in', value: 'won' }), [
      ['chips[0].when.value', /must be a non-empty list with op in/],
    ]);
    assertProblems(withWhen({ field: 'stage', op: 'nin', value: [] }), [
      ['chips[0].when.value', /must be a non-empty list with op nin/],
    ]);
    assertProblems(withWhen({ field: 'stage', op: 'eq' }), [['chips[0].when.value', /is required with op eq/]]);
    assertProblems(withWhen({ field: 'custom.partner', op: 'exists', value: true }), [
      ['chips[0].when.value', /exists takes no value/],
    ]);
    assertProblems(withWhen({ field: 'custom.region', op: 'eq', value: ['EMEA'] }), [
      ['chips[0].when.value', /must be a string, a number or true\/false/],
    ]);
  });

  test('values fit the field', () => {
    assertProblems(withWhen({ field: 'amount_cents', op: 'gte', value: '1000' }), [
      ['chips[0].when.value', /must be an integer amount in cents/],
    ]);
    assertProblems(withWhen({ field: 'close_date', op: 'lt', value: '2026-02-30' }), [
      ['chips[0].when.value', /must be a date YYYY-MM-DD/],
    ]);
    assertProblems(withWhen({ field: 'status', op: 'in', value: ['won', 'closed'] }), [
      ['chips[0].when.value[1]', /must be a deal status \(open, won, lost, deleted\)/],
    ]);
    assertProblems(withWhen({ field: 'owner_external_id', op: 'eq', value: 7 }), [
      ['chips[0].when.value', /must be a non-empty string/],
    ]);
  });

  test('ordering and contains apply only where they make sense', () => {
    assertProblems(withWhen({ field: 'stage', op: 'gt', value: 'a' }), [
      ['chips[0].when.op', /gt compares amount_cents, close_date or a custom field, not stage/],
    ]);
    assertProblems(withWhen({ field: 'amount_cents', op: 'contains', value: 5 }), [
      ['chips[0].when.op', /contains tests text or a list/],
    ]);
    assertProblems(withWhen({ field: 'custom.score', op: 'gt', value: true }), [
      ['chips[0].when.value', /must be a number, a date YYYY-MM-DD or a timestamp \(RFC 3339\) with op gt/],
    ]);
  });

  test('custom field names __proto__, constructor and prototype are reserved', () => {
    assertProblems(withWhen({ field: 'custom.constructor', op: 'exists' }), [['chips[0].when.field', /reserved/]]);
  });
});

describe('plan files: every problem at once', () => {
  test('a file with many problems lists each of them by path, in file order, with YAML lines', () => {
    const text = [
      'key: Core AE', // 1
      'name: Core AE plan', // 2
      'period: weekly', // 3
      'assignees: all', // 4
      'chips:', // 5
      '  - key: base', // 6
      '    name: Base commission', // 7
      '    kind: commission', // 8
      '    rate_bps: 10.505', // 9
      '    when: { field: region, op: in, value: [EMEA] }', // 10
      '  - key: accelerator', // 11
      '    name: Accelerator', // 12
      '    kind: tiered_commission', // 13
      '    mode: marginal', // 14
      '    tiers:', // 15
      '      - { up_to_pct: 100, rate_bps: 0 }', // 16
      '      - { up_to_pct: 90, rate_bps: 500 }', // 17
      '  - key: base', // 18
      '    name: Bonus', // 19
      '    kind: attainment_bonus', // 20
      '    threshold_pct: 100', // 21
    ].join('\n');
    const result = readPlanFile(text);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(result.problems.map(describeProblem), [
      'key (line 1): must be a key: lowercase letters and digits, words separated by - or _ (like core-ae)',
      'period (line 3): must be one of: monthly, quarterly',
      'chips[0].rate_bps (line 9): must have at most two decimals: a rate is a whole number of hundredths of a basis point',
      'chips[0].when.field (line 10): must be amount_cents, stage, close_date, owner_external_id, status or custom.<name>',
      'chips[1].tiers (line 16): up_to_pct bands are percentages of quota: set quota_cents on the plan',
      'chips[1].tiers[1].up_to_pct (line 17): must be null: the last band is open',
      "chips[1].tiers[1].up_to_pct (line 17): must be greater than the previous band's bound (100): bands strictly increase",
      'chips[2].amount_cents (line 18): is required',
      'chips[2].key (line 18): repeats the key of chips[0]; chip keys must be unique',
      'chips[2].threshold_pct (line 21): threshold_pct is a percentage of quota: set quota_cents on the plan',
    ]);
  });

  test('JSON problems have paths but no lines', () => {
    const result = readPlanFile(JSON.stringify({ ...exampleDocument(), period: 'weekly' }), { format: 'json' });
    assert.deepEqual(result, {
      ok: false,
      problems: [{ path: 'period', message: 'must be one of: monthly, quarterly' }],
    });
  });
});

describe('plan files: syntax', () => {
  test('a YAML syntax error is reported with its line, and nothing else is checked', () => {
    const result = readPlanFile('key: core-ae\nname: [unclosed\nassignees: all\n');
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.problems[0]?.path, '');
    assert.match(result.problems[0]?.message ?? '', /^is not valid YAML/);
    assert.equal(typeof result.problems[0]?.line, 'number');
  });

  test('a member given twice is a YAML error, not a silent override', () => {
    const result = readPlanFile('key: core-ae\nkey: core-se\n');
    assert.deepEqual(result, {
      ok: false,
      problems: [{ path: '', line: 2, message: 'is not valid YAML: Map keys must be unique' }],
    });
  });

  test('several YAML documents in one file are refused', () => {
    const result = readPlanFile(`${EXAMPLE_YAML}\n---\n${EXAMPLE_YAML}`);
    assert.equal(result.ok, false);
  });

  test('an empty file is not a plan', () => {
    assert.deepEqual(readPlanFile(''), {
      ok: false,
      problems: [{ path: '', message: 'must be a mapping (an object)' }],
    });
  });

  test('a JSON syntax error is reported as such', () => {
    const result = readPlanFile('{"key": "core-ae",', { format: 'json' });
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.problems[0]?.message ?? '', /^is not valid JSON: /);
  });
});
