import { type AdminActor, adminAuditEntry } from '../audit/adminEntries.ts';
import { adjustmentPeriodProblem } from '../domain/adjustmentPeriods.ts';
import { type AdjustmentCategory, adjustmentProblem } from '../domain/adjustments.ts';
import { isKnownCurrency } from '../domain/currencies.ts';
import { earliestOpenPeriodFrom } from '../domain/earnings/ledger.ts';
import { isPeriodId } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';
import { newId } from '../lib/ids.ts';
import type { AdjustmentRecord, NewAdjustment } from '../repositories/adjustments.ts';
import * as adjustments from '../repositories/adjustments.ts';
import * as audit from '../repositories/audit.ts';
import * as deals from '../repositories/deals.ts';
import * as earningsByPeriod from '../repositories/earningsByPeriod.ts';
import * as ledgerPlans from '../repositories/ledgerPlans.ts';
import * as periods from '../repositories/periods.ts';
import type { Transaction } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import { toWireAdjustment } from '../wire/adjustments.ts';
import type { EarningsRecompute } from './adminRecompute.ts';
import { enqueueWebhookEvent } from './webhookOutbox.ts';

// The steps every adjustment write shares (one added, a void, a file's rows): checking the input, finding its rep
// and deal, holding its open period, writing it with its webhook and audit entry, and recounting attainment after.

/** An adjustment to add: the rep by id or external id, the deal (optional) likewise. */
export interface AdjustmentInput {
  user_id?: string;
  user_external_id?: string;
  period_id: string;
  amount_cents: number;
  currency?: string;
  category: AdjustmentCategory;
  reason: string;
  deal_id?: string;
  deal_external_id?: string;
  idempotency_key?: string;
  /** The amount counts toward the rep's attainment in its period too; false when absent. */
  counts_toward_attainment?: boolean;
}

/** Why rows move when an adjustment that counts toward attainment is added or voided, in their traces. */
const RECOMPUTE_REASON = {
  code: 'amount_changed',
  explanation:
    "A manual adjustment counting toward the rep's attainment was added or voided, and the lines that count attainment were evaluated again.",
} as const;

/** An adjustment as a write drafts it; the id and who added it are filled in by insertAdjustment. */
export type AdjustmentDraft = Omit<NewAdjustment, 'id' | 'org_id' | 'created_by_type' | 'created_by' | 'created_by_id'>;

/**
 * Recomputes the reps' lines that count attainment in the adjustments' periods, after the write committed; without a
 * recompute (a service built alone), nothing is.
 */
export async function recountAttainment(
  recompute: EarningsRecompute | undefined,
  orgId: string,
  counted: ReadonlyArray<{ user_id: string; period_id: string }>,
): Promise<void> {
  if (!recompute || counted.length === 0) return;
  await recompute.run({
    orgId,
    reason: RECOMPUTE_REASON,
    adjustmentChange: {
      userIds: [...new Set(counted.map((each) => each.user_id))].sort(),
      periods: [...new Set(counted.map((each) => each.period_id))].sort(),
    },
  });
}

/** Writes one adjustment (added or a void) with its `adjustment.created` webhook and its audit entry. */
export async function insertAdjustment(
  tx: Transaction,
  orgId: string,
  draft: AdjustmentDraft,
  actor: AdminActor,
): Promise<AdjustmentRecord> {
  const id = newId('adj');
  await adjustments.insert(tx, {
    ...draft,
    id,
    org_id: orgId,
    created_by_type: actor.kind === 'admin' ? 'admin' : 'cli',
    created_by: actor.kind === 'admin' ? actor.email : 'cli',
    created_by_id: actor.kind === 'admin' ? actor.adminId : null,
  });
  const record = (await adjustments.find(tx, orgId, id)) as AdjustmentRecord;
  await enqueueWebhookEvent(
    tx,
    orgId,
    'adjustment.created',
    { adjustment: toWireAdjustment(record) },
    {
      timestamp: record.created_at,
    },
  );
  await audit.insertMany(tx, [
    adminAuditEntry(
      orgId,
      draft.voids_id === null ? 'adjustment.created' : 'adjustment.voided',
      {
        adjustment_id: id,
        user_id: record.user_id,
        period_id: record.period_id,
        amount_cents: record.amount_cents,
        currency: record.currency,
        category: record.category,
        reason: record.reason,
        ...(draft.voids_id === null ? {} : { voids_id: draft.voids_id }),
      },
      actor,
    ),
  ]);
  return record;
}

export function inputProblem(input: AdjustmentInput): string | null {
  if ((input.user_id === undefined) === (input.user_external_id === undefined)) {
    return 'name the rep by exactly one of user_id and user_external_id';
  }
  if (input.deal_id !== undefined && input.deal_external_id !== undefined) {
    return 'name the deal by at most one of deal_id and deal_external_id';
  }
  if (!isPeriodId(input.period_id)) {
    return `period_id: ${JSON.stringify(input.period_id)} is not YYYY-MM (a month) or YYYY-Qn (a quarter)`;
  }
  if (input.currency !== undefined && !isKnownCurrency(input.currency)) {
    return `currency: ${JSON.stringify(input.currency)} is not an ISO 4217 currency code`;
  }
  return adjustmentProblem(input);
}

export type Refuse = new (message: string) => Error;

export function refusal(
  as: Refuse | undefined,
  code: 'not_found' | 'invalid_state' | 'invalid_body',
  reason: string,
): Error {
  return as ? new as(reason) : new Refusal(code, reason);
}

/** The adjustment a key added, when the input asks for the same one; else the key is refused. */
export function sameOrRefused(existing: AdjustmentRecord, input: AdjustmentInput, as?: Refuse): AdjustmentRecord {
  const same =
    existing.period_id === input.period_id &&
    existing.amount_cents === input.amount_cents &&
    existing.category === input.category &&
    existing.reason === input.reason &&
    (input.currency === undefined || existing.currency === input.currency) &&
    existing.counts_toward_attainment === (input.counts_toward_attainment ?? false) &&
    (input.user_id === undefined || existing.user_id === input.user_id) &&
    (input.user_external_id === undefined || existing.user_external_id === input.user_external_id);
  if (!same) {
    throw refusal(
      as,
      'invalid_state',
      `idempotency_key: ${input.idempotency_key} already added another adjustment (${existing.id})`,
    );
  }
  return existing;
}

export async function resolveUser(
  tx: Transaction,
  orgId: string,
  input: AdjustmentInput,
  as?: Refuse,
): Promise<string> {
  if (input.user_id !== undefined) {
    const user = await users.find(tx, orgId, input.user_id);
    if (!user) throw refusal(as, 'not_found', `no rep ${input.user_id}`);
    return user.id;
  }
  const user = await users.findRepByExternalId(tx, orgId, input.user_external_id ?? '');
  if (!user) throw refusal(as, 'not_found', `no rep with external id ${input.user_external_id}`);
  return user.id;
}

export async function resolveDeal(
  tx: Transaction,
  orgId: string,
  input: AdjustmentInput,
  as?: Refuse,
): Promise<string | null> {
  if (input.deal_id !== undefined) {
    const deal = await deals.findById(tx, orgId, input.deal_id);
    if (!deal) throw refusal(as, 'not_found', `no deal ${input.deal_id}`);
    return deal.id;
  }
  if (input.deal_external_id !== undefined) {
    const deal = await deals.findByExternalId(tx, orgId, input.deal_external_id);
    if (!deal) throw refusal(as, 'not_found', `no deal with external id ${input.deal_external_id}`);
    return deal.id;
  }
  return null;
}

/**
 * Holds the period `FOR SHARE` (created open if new) until the transaction ends, so a lock waits for the write;
 * a locked or paid period is refused, naming the earliest open period after it.
 */
/**
 * Refuses an adjustment into a period that is not one of a plan the rep is on (docs/pay-workflow.md#manual-adjustments):
 * a quarter for a rep paid monthly, a month before anything was booked for the org. Read inside the adjustment's
 * transaction, before its period is held, so a refusal leaves no period row behind.
 */
export async function requirePlanPeriod(
  tx: Transaction,
  orgId: string,
  userId: string,
  periodId: string,
  as?: Refuse,
): Promise<void> {
  if (!isPeriodId(periodId)) return;
  const user = await users.find(tx, orgId, userId);
  const plans = await ledgerPlans.listForStatements(tx, orgId);
  const repHasRowsInPeriod = await earningsByPeriod.repHasRowsInPeriod(tx, orgId, userId, periodId);
  const firstBookedOn = await earningsByPeriod.firstBookedDay(tx, orgId);
  const problem = adjustmentPeriodProblem({
    periodId,
    repExternalId: user?.external_id ?? '',
    plans,
    repHasRowsInPeriod,
    firstBookedOn,
  });
  if (problem) throw refusal(as, 'invalid_body', problem);
}

export async function requireOpenPeriod(tx: Transaction, orgId: string, periodId: string, as?: Refuse): Promise<void> {
  await periods.ensurePeriods(tx, orgId, [periodId]);
  const held = await periods.sharePeriods(tx, orgId, [periodId]);
  const status = held.get(periodId) ?? 'open';
  if (status === 'open') return;
  const next = earliestOpenPeriodFrom(periodId, await periods.periodStatuses(tx, orgId));
  throw refusal(
    as,
    'invalid_state',
    `period ${periodId} is ${status}: adjustments go to an open period; use ${next}, the earliest open period after it`,
  );
}
