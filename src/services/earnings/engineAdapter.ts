import { withPrecedence } from '../../domain/earnings/precedence.ts';
import type { DealSnapshot, EnginePlanVersion, Rep } from '../../domain/earnings/types.ts';
import type { DealRecord } from '../../repositories/deals.ts';
import type { PlanState } from '../../repositories/ledgerPlans.ts';
import * as planSnapshots from '../../repositories/planSnapshots.ts';
import type { PlanVersionSnapshot } from '../../repositories/plans.ts';
import type { Transaction } from '../../repositories/transaction.ts';

// The pure engine's inputs (src/domain/earnings) made from what the repositories return.

const PLAN_CACHE_SIZE = 512;

/** The engine's plan: a stored plan version in the engine's terms. */
export function enginePlanOf(snapshot: PlanVersionSnapshot): EnginePlanVersion {
  // Rule precedence is read once here, so that every part of the plan the engine is given sees it.
  return withPrecedence({
    plan_id: snapshot.plan.id,
    plan_key: snapshot.plan.key,
    version_id: snapshot.version_id,
    version_number: snapshot.version_number,
    period: snapshot.definition.period,
    quota_cents: snapshot.definition.quota_cents,
    plan_year: snapshot.definition.plan_year ?? null,
    assignees: snapshot.definition.assignees,
    ramp: snapshot.definition.ramp ?? null,
    leaver_rule: snapshot.definition.leaver_rule ?? null,
    cap_cents: snapshot.definition.cap_cents ?? null,
    currency: snapshot.definition.currency ?? null,
    draw: snapshot.definition.draw ?? null,
    chips: snapshot.chips.map((chip) => ({ ...chip.definition, id: chip.id, version: chip.version })),
  });
}

/** The engine's deal: the projection's fields, `won_at` and the payments (when it has any) included. */
export function dealSnapshotOf(deal: DealRecord): DealSnapshot {
  const payments = deal.payments ?? null;
  return {
    id: deal.id,
    external_id: deal.external_id,
    amount_cents: deal.state.amount_cents,
    stage: deal.state.stage,
    close_date: deal.state.close_date,
    owner_external_id: deal.state.owner_external_id,
    status: deal.status,
    custom: deal.state.custom,
    splits:
      deal.splits === null
        ? null
        : deal.splits.map(({ owner_external_id, share_bps }) => ({ owner_external_id, share_bps })),
    currency: deal.currency,
    won_at: deal.won_at?.toISOString() ?? null,
    ...(payments === null || payments.length === 0 ? {} : { payments: payments.map(paymentOf) }),
  };
}

function paymentOf(
  payment: NonNullable<DealRecord['payments']>[number],
): NonNullable<DealSnapshot['payments']>[number] {
  return {
    id: payment.id,
    external_id: payment.external_id,
    amount_cents: payment.amount_cents,
    received_on: payment.received_on,
    ...(payment.voided === true ? { voided: true } : {}),
  };
}

/** The reps a deal credits, with their user ids: its split's reps, else its owner. */
export function creditedRepsOf(deal: DealRecord): Rep[] {
  if (deal.splits)
    return deal.splits.map((split) => ({ user_id: split.user_id, external_id: split.owner_external_id }));
  const owner = deal.state.owner_external_id;
  return owner !== null && deal.user_id !== null ? [{ user_id: deal.user_id, external_id: owner }] : [];
}

/** Plan versions in the engine's terms, read once each: a version never changes once written. */
export class EnginePlanVersions {
  readonly #versions = new Map<string, EnginePlanVersion>();

  /** The versions named, each read on a cache miss in the evaluation's own transaction. */
  async of(tx: Transaction, orgId: string, states: readonly PlanState[]): Promise<EnginePlanVersion[]> {
    const versions: EnginePlanVersion[] = [];
    for (const state of states) {
      let version = this.#versions.get(state.version_id);
      if (!version) {
        // Plan versions never change once written, and the one named here is committed: read it once.
        const snapshot = await planSnapshots.versionSnapshot(tx, orgId, state.plan_id, state.version_id);
        if (!snapshot) throw new Error(`plan ${state.plan_id} of org ${orgId} has no version ${state.version_id}`);
        version = enginePlanOf(snapshot);
        if (this.#versions.size >= PLAN_CACHE_SIZE) this.#versions.clear();
        this.#versions.set(state.version_id, version);
      }
      versions.push(version);
    }
    return versions;
  }
}
