import type { EarningListItem, QuotientClient } from '../../sdk/src/index.ts';
import { planFile } from '../factories/plans.ts';
import { cliJson } from './cli.ts';

// The helpers the earnings tests share: reading every earnings row through the SDK, a deal's state, and applying
// a plan file as an admin does.

type EarningsQuery = Parameters<QuotientClient['earnings']['list']>[0];

/** Every earnings row the query lists, over all its pages. */
export async function listAll(client: QuotientClient, query: EarningsQuery = {}): Promise<EarningListItem[]> {
  const rows: EarningListItem[] = [];
  for await (const row of client.earnings.list(query)) rows.push(row);
  return rows;
}

/** A deal event's state for the rep `rep-017`, with any custom fields. */
export function state(amountCents: number, stage: string, closeDate: string, custom: Record<string, unknown> = {}) {
  return { amount_cents: amountCents, stage, close_date: closeDate, owner_external_id: 'rep-017', ...custom };
}

/** What `quotient plans apply --json` prints, as far as the tests read it. */
export interface AppliedPlan {
  plan_id: string;
  version_id: string;
  chips: Array<{ id: string; key: string; version: string }>;
  recompute: { lines_evaluated: number; rows_written: number; rows_superseded: number; rows_reversed: number } | null;
}

/** Applies the plan document with `quotient plans apply`, as an admin does; its earnings are recomputed. */
export async function applyPlanFile(orgId: string, document: object): Promise<AppliedPlan> {
  return cliJson<AppliedPlan>(['plans', 'apply', await planFile(document), '--org', orgId]);
}
