import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Database } from '../../src/db/prisma.ts';
import { noPlanChanges } from '../helpers/listeners.ts';
import { testServices } from '../helpers/services.ts';

let counter = 0;

/** A plan file document like product.md's example, with a key of its own unless one is given. */
export function planDocument(overrides: Record<string, unknown> = {}) {
  return {
    key: `core-ae-${++counter}`,
    name: 'Core AE plan',
    period: 'monthly',
    quota_cents: 10000000,
    assignees: 'all',
    chips: [
      {
        key: 'base',
        name: 'Base commission',
        kind: 'commission',
        rate_bps: 1000,
        when: { field: 'custom.region', op: 'in', value: ['EMEA', 'NA'] },
      },
      {
        key: 'accelerator',
        name: 'Accelerator over quota',
        kind: 'tiered_commission',
        mode: 'marginal',
        tiers: [
          { up_to_pct: 100, rate_bps: 0 },
          { up_to_pct: null, rate_bps: 500 },
        ],
      },
      {
        key: 'new-logo',
        name: 'New logo SPIFF',
        kind: 'flat',
        amount_cents: 50000,
        when: { field: 'custom.new_logo', op: 'eq', value: true },
      },
      {
        key: 'quota-bonus',
        name: 'Quota attainment bonus',
        kind: 'attainment_bonus',
        threshold_pct: 100,
        amount_cents: 200000,
      },
    ] as Array<Record<string, unknown>>,
    ...overrides,
  };
}

export type PlanDocument = ReturnType<typeof planDocument>;

/** Applies a plan document to the org through the admin service, as `quotient plans apply` does. */
export function applyPlan(db: Database, orgId: string, document: object) {
  return testServices({ db }).admin.planAdmin.apply({ orgId, text: stringify(document) }, noPlanChanges);
}

/** Writes the document to a temporary plan file (YAML, or JSON for a `.json` name) and returns its path. */
export async function planFile(document: object, name = 'plan.yaml'): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'quotient-plan-'));
  const path = join(directory, name);
  await writeFile(path, name.endsWith('.json') ? JSON.stringify(document, null, 2) : stringify(document));
  return path;
}
