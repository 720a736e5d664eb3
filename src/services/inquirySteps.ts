import { adminAuditEntry } from '../audit/adminEntries.ts';
import type { InquiryParty } from '../domain/inquiries.ts';
import { isPeriodId } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';
import { hasPrefix, newId } from '../lib/ids.ts';
import type { AuditEntryInput } from '../repositories/audit.ts';
import * as deals from '../repositories/deals.ts';
import * as earningsList from '../repositories/earningsList.ts';
import type { InquiryLinkRecord } from '../repositories/inquiries.ts';
import * as sourceEvents from '../repositories/sourceEvents.ts';
import type { Transaction } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import type { AdjustmentLookup, InquiryActor, OpenInquiryInput, ResolveInquiryInput } from './inquiries.ts';

// The steps an inquiry's use cases share: who the actor is to the rules and the thread, what an opening is about,
// the links a resolution names, and the audit entry of a step.

export function partyOf(actor: InquiryActor): InquiryParty {
  return actor.kind === 'rep'
    ? { kind: 'rep', userId: actor.userId, visibleUserIds: actor.visibleUserIds }
    : { kind: actor.kind };
}

/** The author of a comment or an opening, for the thread: who, and a label for people. */
export async function authorOf(
  tx: Transaction,
  orgId: string,
  actor: InquiryActor,
): Promise<{ kind: 'rep' | 'admin' | 'api_key'; id: string; label: string }> {
  if (actor.kind === 'rep') {
    const user = await users.find(tx, orgId, actor.userId);
    return { kind: 'rep', id: actor.userId, label: user?.external_id ?? actor.userId };
  }
  if (actor.kind === 'api_key') return { kind: 'api_key', id: actor.keyId, label: actor.keyName };
  return actor.admin.kind === 'cli'
    ? { kind: 'admin', id: 'cli', label: 'cli' }
    : { kind: 'admin', id: actor.admin.adminId, label: actor.admin.email };
}

/** The audit entry of an inquiry's step, with the actor as the audit log names each kind. */
export function auditEntry(
  orgId: string,
  actor: InquiryActor,
  action: string,
  details: Record<string, unknown>,
): AuditEntryInput {
  if (actor.kind === 'admin') return adminAuditEntry(orgId, action, details, actor.admin);
  const request = actor.request
    ? {
        method: actor.request.method,
        route: actor.request.route,
        request_id: actor.request.requestId,
        client_ip: actor.request.clientIp,
        user_agent: actor.request.userAgent,
      }
    : {};
  const base = { id: newId('aud'), org_id: orgId, occurred_at: new Date(), action, ...request };
  if (actor.kind === 'rep') {
    return {
      ...base,
      actor_type: 'rep',
      actor: actor.userId,
      details: { ...details, token_id: actor.tokenId ?? null } as AuditEntryInput['details'],
    };
  }
  return { ...base, actor_type: 'api_key', key_id: actor.keyId, details: details as AuditEntryInput['details'] };
}

/** The rep, period, earning and deal an inquiry is about, from its subject, as far as the actor may see them. */
export async function subjectOf(
  tx: Transaction,
  orgId: string,
  actor: InquiryActor,
  input: OpenInquiryInput,
): Promise<{ userId: string; earningId: string | null; dealId: string | null; periodId: string | null }> {
  const { subject } = input;
  const party = partyOf(actor);
  const members = { earning: 'earning_id', deal: 'deal_id', statement: 'period_id' } as const;
  const own = members[subject.kind];
  for (const member of Object.values(members)) {
    if (member !== own && subject[member] !== undefined) {
      throw new Refusal('invalid_body', `subject.${member}: not a member of a ${subject.kind} subject`);
    }
  }
  const value = subject[own];
  if (value === undefined) throw new Refusal('invalid_body', `subject.${own}: required for a ${subject.kind} subject`);
  const ownRep = actor.kind === 'rep' ? actor.userId : undefined;

  if (subject.kind === 'earning') {
    const earning = await earningsList.findWithTrace(tx, orgId, value);
    if (!earning || (party.kind === 'rep' && !party.visibleUserIds.includes(earning.user_id))) {
      throw new Refusal('not_found', `no earning ${value}`);
    }
    if (input.user_id !== undefined && input.user_id !== earning.user_id) {
      throw new Refusal('invalid_body', `user_id: earning ${value} is ${earning.user_id}'s, not ${input.user_id}'s`);
    }
    return { userId: earning.user_id, earningId: earning.id, dealId: earning.deal_id, periodId: earning.period_id };
  }

  const userId = input.user_id ?? ownRep;
  if (userId === undefined) {
    throw new Refusal('invalid_body', `user_id: required for a ${subject.kind} subject (the rep it is about)`);
  }
  if (subject.kind === 'deal') {
    const deal = await deals.findById(tx, orgId, value);
    const credited = deal ? [deal.user_id, ...(deal.splits ?? []).map((split) => split.user_id)] : [];
    if (!deal || (party.kind === 'rep' && !credited.some((id) => id !== null && party.visibleUserIds.includes(id)))) {
      throw new Refusal('not_found', `no deal ${value}`);
    }
    return { userId, earningId: null, dealId: deal.id, periodId: null };
  }
  if (!isPeriodId(value)) throw new Refusal('invalid_body', 'subject.period_id: must be YYYY-MM or YYYY-Qn');
  return { userId, earningId: null, dealId: null, periodId: value };
}

/** The links a resolution names, each checked to be of the org (an adjustment through `adjustments`, when given). */
export async function checkLinks(
  tx: Transaction,
  orgId: string,
  links: ResolveInquiryInput['links'],
  adjustmentLookup: AdjustmentLookup | undefined,
): Promise<InquiryLinkRecord[]> {
  const checked: InquiryLinkRecord[] = [];
  for (const [index, link] of links.entries()) {
    const where = `links[${index}].id`;
    const id = link.id ?? null;
    if (link.kind === 'recompute') {
      if (id !== null) throw new Refusal('invalid_body', `${where}: a recompute names no id`);
      checked.push({ kind: 'recompute', target_id: null });
      continue;
    }
    if (id === null)
      throw new Refusal(
        'invalid_body',
        `${where}: required for ${link.kind === 'adjustment' ? 'an adjustment' : 'a source event'}`,
      );
    if (link.kind === 'source_event') {
      if (!hasPrefix(id, 'se') || !(await sourceEvents.exists(tx, orgId, id))) {
        throw new Refusal('invalid_body', `${where}: no source event ${id} in the org`);
      }
    } else {
      const known =
        /^adj_[0-7][0-9a-hjkmnp-tv-z]{25}$/.test(id) && (await adjustmentLookup?.exists(tx, orgId, id)) !== false;
      if (!known) throw new Refusal('invalid_body', `${where}: no adjustment ${id} in the org`);
    }
    checked.push({ kind: link.kind, target_id: id });
  }
  return checked;
}
