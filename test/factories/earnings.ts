import type { DealSnapshot, EngineChip, EnginePlanVersion, Rep } from '../../src/domain/earnings/types.ts';

// Plain data for the chip engine's unit tests: valid-looking TypeIDs that sort by the number they are
// built from, the worked example's plan (product.md section 10), reps and deals.

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** A TypeID-shaped id; ids built from larger numbers sort after smaller ones, as real TypeIDs do over time. */
export function testId(prefix: string, n: number): string {
  let suffix = '';
  for (let rest = n; rest > 0; rest = Math.floor(rest / 32)) suffix = (CROCKFORD[rest % 32] ?? '0') + suffix;
  return `${prefix}_${suffix.padStart(26, '0')}`;
}

export const rep: Rep = { user_id: testId('user', 17), external_id: 'rep-017' };
export const otherRep: Rep = { user_id: testId('user', 18), external_id: 'rep-018' };

/** A chip as it may come back from storage: the engine checks its params itself, so tests may break them. */
export interface StoredChip {
  key: string;
  name: string;
  kind: EngineChip['kind'];
  when: EngineChip['when'];
  params: Record<string, unknown>;
  version?: string;
}

export function chip(n: number, definition: StoredChip): EngineChip {
  return { version: '1', ...definition, id: testId('chip', n) } as unknown as EngineChip;
}

/** A 10% commission on every deal, with nothing else: for tests of what surrounds a line (currencies, wording). */
export const baseCommission: EngineChip = chip(1, {
  key: 'base',
  name: 'Base commission',
  kind: 'commission',
  when: null,
  params: { rate_bps: 1000 },
});

export const workedExampleChips: EngineChip[] = [
  chip(1, {
    key: 'base',
    name: 'Base commission',
    kind: 'commission',
    when: { field: 'custom.region', op: 'in', value: ['EMEA', 'NA'] },
    params: { rate_bps: 1000, base: 'amount_cents' },
  }),
  chip(2, {
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
  }),
  chip(3, {
    key: 'new-logo',
    name: 'New logo SPIFF',
    kind: 'flat',
    when: { field: 'custom.new_logo', op: 'eq', value: true },
    params: { amount_cents: 50000 },
  }),
  chip(4, {
    key: 'quota-bonus',
    name: 'Quota attainment bonus',
    kind: 'attainment_bonus',
    when: null,
    params: { threshold_pct: 100, amount_cents: 200000 },
  }),
];

export function plan(overrides: Partial<EnginePlanVersion> = {}): EnginePlanVersion {
  return {
    plan_id: testId('plan', 1),
    plan_key: 'core-ae',
    version_id: testId('pv', 1),
    version_number: 1,
    period: 'monthly',
    quota_cents: 10_000_000,
    assignees: 'all',
    chips: workedExampleChips,
    ...overrides,
  };
}

// Rule precedence: a flat amount on APAC deals replaces the worked example's accelerator there (so the accelerator
// counts no APAC deal) and its base commission.
export const precedencePlan: EnginePlanVersion = plan({
  plan_key: 'precedence',
  chips: [
    ...workedExampleChips,
    chip(13, {
      key: 'apac-flat',
      name: 'APAC flat',
      kind: 'flat',
      when: { field: 'custom.region', op: 'eq', value: 'APAC' },
      params: {
        amount_cents: 70_000,
        replaces: workedExampleChips.filter((each) => each.kind !== 'attainment_bonus').map((each) => each.key),
      },
    }),
  ],
});

// Rate tables and fine rates: a cumulative table of amounts in percent of quota (its bands filled in proportion, nothing
// above its last bound), a per-deal table in cents on non-APAC deals and a rate of 133.33 bps on APAC deals, beside the
// worked example's chips.
export const rateTablePlan: EnginePlanVersion = plan({
  plan_key: 'rate-tables',
  chips: [
    ...workedExampleChips,
    chip(14, {
      key: 'table-cumulative',
      name: 'Table of the running total',
      kind: 'tiered_commission',
      when: null,
      params: {
        mode: 'marginal',
        tiers: [
          { up_to_pct: 50, amount_cents: 100_000 },
          { up_to_pct: 100, amount_cents: 300_000 },
          { up_to_pct: 150, amount_cents: 700_000 },
        ],
      },
    }),
    chip(15, {
      key: 'table-per-deal',
      name: 'Table per deal',
      kind: 'tiered_commission',
      when: { field: 'custom.region', op: 'ne', value: 'APAC' },
      params: {
        mode: 'marginal',
        basis: 'per_deal',
        tiers: [
          { up_to_cents: 3_000_000, amount_cents: 33_333 },
          { up_to_cents: 9_000_000, amount_cents: 100_000 },
        ],
      },
    }),
    chip(16, {
      key: 'fine-rate',
      name: 'Target-based rate',
      kind: 'commission',
      when: { field: 'custom.region', op: 'eq', value: 'APAC' },
      params: { rate_bps: 133.33, base: 'amount_cents' },
    }),
  ],
});

export function deal(n: number, overrides: Partial<DealSnapshot> = {}): DealSnapshot {
  return {
    id: testId('deal', n),
    external_id: `opp-${n}`,
    amount_cents: 1_000_000,
    stage: 'closed_won',
    close_date: '2026-04-10',
    owner_external_id: rep.external_id,
    status: 'won',
    custom: {},
    won_at: '2026-04-10T12:00:00.000Z',
    ...overrides,
  };
}
