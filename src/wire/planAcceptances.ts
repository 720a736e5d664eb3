import type { components as PublicSchemas } from '../../generated/openapi.ts';
import type { components as AdminSchemas } from '../../generated/openapi-admin.ts';
import type { PlanAcceptanceRecord } from '../repositories/planAcceptances.ts';
import type { PlanVersionAcceptances } from '../services/planAcceptances.ts';

// The one mapper of a plan acceptance to the contracts: /v1, its webhooks, the admin API and `quotient acceptances
// --json`.

export type WirePlanAcceptance = PublicSchemas['schemas']['PlanAcceptance'];
export type WirePlanVersionAcceptances = AdminSchemas['schemas']['PlanVersionAcceptances'];

export function toWirePlanAcceptance(record: PlanAcceptanceRecord): WirePlanAcceptance {
  return {
    id: record.id,
    user_id: record.user_id,
    user_external_id: record.user_external_id,
    plan_id: record.plan_id,
    plan_name: record.plan_name,
    plan_version_id: record.plan_version_id,
    plan_version: record.plan_version,
    state: record.state,
    requested_at: record.requested_at.toISOString(),
    reminded_at: record.reminded_at?.toISOString() ?? null,
    accepted_at: record.accepted_at?.toISOString() ?? null,
    typed_name: record.typed_name,
    ip_address: record.ip_address,
    user_agent: record.user_agent,
    rep_token_id: record.rep_token_id,
    document_sha256: record.document_sha256,
  };
}

export function toWirePlanVersionAcceptances(view: PlanVersionAcceptances): WirePlanVersionAcceptances {
  const accepted = view.acceptances.filter((entry) => entry.state === 'accepted').length;
  return {
    plan_id: view.plan_id,
    plan_name: view.plan_name,
    plan_version_id: view.plan_version_id,
    plan_version: view.plan_version,
    accepted_count: accepted,
    waiting_count: view.acceptances.length - accepted,
    acceptances: view.acceptances.map((entry) => ({
      user_name: entry.user_name,
      plan_acceptance: toWirePlanAcceptance(entry),
    })),
  };
}
