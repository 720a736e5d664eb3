import assert from 'node:assert/strict';
import type { QuotientClient } from '../../sdk/src/index.ts';
import type { Database } from '../../src/db/prisma.ts';
import type { RunningServer } from '../../src/main.ts';
import { createOrgWithKey } from '../factories/access.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { sdkClient } from './sdk.ts';
import { testServices } from './services.ts';

// An org of three reps for the rep principal's tests: A manages C (from 2026-01-01), B is nobody's; each has a plan
// of their own, a won deal in April (locked, so payouts exist), an inquiry about its earning and an open deal. Plus another org with the same.

export const MINT_SCOPES = ['deals:read', 'deals:write', 'earnings:read', 'plans:read', 'rep_tokens:write'];

export interface RepObjects {
  userId: string;
  externalId: string;
  planId: string;
  wonDealId: string;
  openDealId: string;
  openDealExternalId: string;
  earningId: string;
  /** An inquiry about the won deal's earning, opened by an admin. */
  inquiryId: string;
  /** A manual adjustment of the rep's April, added by an admin. */
  adjustmentId: string;
  /** The request that the rep accept their plan's current version (not accepted). */
  acceptanceId: string;
}

export interface RepWorld {
  orgId: string;
  rawKey: string;
  client: QuotientClient;
  a: RepObjects;
  b: RepObjects;
  c: RepObjects;
  /** The same objects in another org. */
  other: RepObjects & { orgId: string };
}

function commissionPlan(rep: string) {
  return planDocument({
    key: `plan-of-${rep}`,
    assignees: [rep],
    chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }],
  });
}

async function repObjects(db: Database, orgId: string, client: QuotientClient, rep: string): Promise<RepObjects> {
  const plan = await applyPlan(db, orgId, commissionPlan(rep));
  const won = await client.deals.ingestEvent({
    external_id: `won-${rep}`,
    state: { amount_cents: 1_000_000, stage: 'closed_won', close_date: '2026-04-20', owner_external_id: rep },
  });
  const open = await client.deals.ingestEvent({
    external_id: `open-${rep}`,
    state: { amount_cents: 2_000_000, stage: 'negotiation', close_date: '2026-05-20', owner_external_id: rep },
  });
  const earnings = await client.earnings.listPage({ deal_id: won.deal_id });
  const earning = earnings.earnings[0];
  assert.ok(earning, `the won deal of ${rep} earns`);
  const { inquiry } = await testServices({ db }).admin.inquiries.open(
    orgId,
    { kind: 'admin', admin: { kind: 'cli' } },
    { subject: { kind: 'earning', earning_id: earning.id }, type: 'wrong_amount', message: `Is ${rep}'s line right?` },
  );
  const { adjustment } = await testServices({ db }).admin.adjustments.create(orgId, {
    user_id: earning.user_id,
    period_id: '2026-04',
    amount_cents: 5_000,
    category: 'one_off_bonus',
    reason: `Spot bonus for ${rep}`,
  });
  // The plan was applied before the rep's first deal created them: they are asked now (docs/plan-acceptance.md).
  const acceptances = testServices({ db }).admin.planAcceptances;
  await acceptances.requestCurrent(orgId, plan.plan_id);
  const asked = await acceptances.list(
    { kind: 'org', orgId },
    { filters: { userId: earning.user_id, planId: plan.plan_id }, limit: 1 },
  );
  const acceptance = asked.acceptances[0];
  assert.ok(acceptance, `${rep} is asked to accept their plan`);
  return {
    userId: earning.user_id,
    externalId: rep,
    planId: plan.plan_id,
    wonDealId: won.deal_id,
    openDealId: open.deal_id,
    openDealExternalId: `open-${rep}`,
    earningId: earning.id,
    inquiryId: inquiry.id,
    adjustmentId: adjustment.id,
    acceptanceId: acceptance.id,
  };
}

export async function repWorld(db: Database, server: RunningServer): Promise<RepWorld> {
  const services = testServices({ db });
  const { org, rawKey } = await createOrgWithKey(db, { scopes: MINT_SCOPES });
  const client = sdkClient(server, rawKey);
  const a = await repObjects(db, org.id, client, 'rep-a');
  const b = await repObjects(db, org.id, client, 'rep-b');
  const c = await repObjects(db, org.id, client, 'rep-c');
  await services.admin.repHierarchy.setManager({
    orgId: org.id,
    repExternalId: 'rep-c',
    managerExternalId: 'rep-a',
    from: '2026-01-01',
  });
  await services.admin.periods.lock(org.id, '2026-04');
  const second = await createOrgWithKey(db, { scopes: MINT_SCOPES });
  const otherClient = sdkClient(server, second.rawKey);
  const other = await repObjects(db, second.org.id, otherClient, 'rep-x');
  await services.admin.periods.lock(second.org.id, '2026-04');
  return { orgId: org.id, rawKey, client, a, b, c, other: { ...other, orgId: second.org.id } };
}

/** A rep token for the rep, minted through the SDK by the world's key. */
export async function repClient(server: RunningServer, world: RepWorld, rep: RepObjects, ttlSeconds?: number) {
  const minted = await world.client.repTokens.create({
    user_id: rep.userId,
    ...(ttlSeconds === undefined ? {} : { ttl_seconds: ttlSeconds }),
  });
  return { minted, client: sdkClient(server, minted.token, { maxRetries: 0 }) };
}
