import type { components } from '../../generated/openapi.ts';
import type { components as admin } from '../../generated/openapi-admin.ts';
import {
  limitsOf,
  type PlanLimits,
  type PlanRecord,
  type PlanVersionSnapshot,
  type VersionChip,
} from '../repositories/plans.ts';

// A plan on the wire: the public API's plan (with who it applies to and, on request, its chips), its list item,
// and the admin API's summary, which the CLI prints too. Each allow-lists the fields its contract names.

export type WirePlan = components['schemas']['Plan'];
export type WirePlanListItem = components['schemas']['PlanListItem'];
export type WireRuleChip = components['schemas']['RuleChip'];
export type WirePlanSummary = admin['schemas']['PlanSummary'];

/** `GET /v1/plans` lists a plan by these four fields only. */
export function toWirePlanListItem(plan: PlanRecord): WirePlanListItem {
  return {
    id: plan.id,
    name: plan.name,
    current_version_id: plan.current_version_id,
    created_at: plan.created_at.toISOString(),
  };
}

/** `GET /v1/plans/{id}`: the plan and who its current version applies to. */
export function toWirePlan({ plan, definition }: PlanVersionSnapshot): WirePlan {
  return {
    ...planIdentity(plan),
    ...(definition.currency === undefined ? {} : { currency: definition.currency }),
    ...(definition.plan_year === undefined ? {} : { plan_year: { starts_month: definition.plan_year.starts_month } }),
    ...limitsOf(definition),
    assignees: definition.assignees === 'all' ? 'all' : [...definition.assignees],
    current_version_id: plan.current_version_id,
    created_at: plan.created_at.toISOString(),
    updated_at: plan.updated_at.toISOString(),
  };
}

/** A chip of the current version, as `include=chips` shows it. */
export function toWireChip(chip: VersionChip): WireRuleChip {
  const { definition } = chip;
  return {
    id: chip.id,
    key: definition.key,
    name: definition.name,
    kind: definition.kind,
    version: chip.version,
    when: definition.when,
    params: { ...definition.params },
  };
}

/** The admin API's plan, with the number and limits of its current version; `quotient plans` prints the same. */
export function toWirePlanSummary(plan: PlanRecord, currentVersion: number, limits: PlanLimits): WirePlanSummary {
  return {
    ...planIdentity(plan),
    ...limits,
    current_version_id: plan.current_version_id,
    current_version: currentVersion,
    created_at: plan.created_at.toISOString(),
    updated_at: plan.updated_at.toISOString(),
    archived_at: plan.archived_at?.toISOString() ?? null,
  };
}

/** What names a plan and what it pays against, in the public API's plan and the admin API's alike. */
function planIdentity(plan: PlanRecord) {
  return {
    id: plan.id,
    key: plan.key,
    name: plan.name,
    status: plan.status,
    period: plan.period,
    quota_cents: plan.quota_cents,
  };
}
