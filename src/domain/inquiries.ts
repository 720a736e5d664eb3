import { Refusal } from './refusal.ts';

// Inquiries: a rep's question about a line of their pay. The rules of who may do what in which state, as pure
// functions, so the admin API, /v1 and the CLI refuse the same things with the same codes (docs/inquiries.md).

export const INQUIRY_STATES = ['open', 'in_review', 'resolved', 'rejected', 'withdrawn'] as const;
export type InquiryState = (typeof INQUIRY_STATES)[number];

/** Closed: nothing more happens to the inquiry (no comment, no move). */
export const CLOSED_STATES: readonly InquiryState[] = ['resolved', 'rejected', 'withdrawn'];

export const INQUIRY_TYPES = ['missing_deal', 'wrong_amount', 'wrong_credit', 'wrong_plan', 'other'] as const;
export type InquiryType = (typeof INQUIRY_TYPES)[number];

export const INQUIRY_SUBJECTS = ['earning', 'deal', 'statement'] as const;
export type InquirySubjectKind = (typeof INQUIRY_SUBJECTS)[number];

/** What can settle an inquiry: an adjustment, a corrected deal event (its source event), a recompute. */
export const RESOLUTION_LINK_KINDS = ['adjustment', 'source_event', 'recompute'] as const;
export type ResolutionLinkKind = (typeof RESOLUTION_LINK_KINDS)[number];

/**
 * Who acts, as far as the rules care. `rep`: a rep principal (the rep, or a manager up the chain, with the users
 * they may see: themselves and, transitively, their reports); `admin`: an admin of the org (console or CLI);
 * `api_key`: an integration acting for the whole org.
 */
export type InquiryParty =
  | { kind: 'rep'; userId: string; visibleUserIds: readonly string[] }
  | { kind: 'admin' }
  | { kind: 'api_key' };

export const INQUIRY_ACTIONS = [
  'view',
  'comment',
  'note',
  'withdraw',
  'assign',
  'start_review',
  'resolve',
  'reject',
] as const;
export type InquiryAction = (typeof INQUIRY_ACTIONS)[number];

interface Rule {
  /** Who may take the action (once the inquiry is visible to them). */
  parties: ReadonlyArray<InquiryParty['kind']>;
  /** The states it may be taken in. */
  from: readonly InquiryState[];
  /** The state it leaves the inquiry in; absent: the state does not change. */
  to?: InquiryState;
  /** Taken by an admin, it is an answer the rep's side can see (first-response time). */
  answersRep: boolean;
}

const NOT_CLOSED: readonly InquiryState[] = ['open', 'in_review'];

/**
 * The transition table. `view` is allowed in every state; every other action only while the inquiry is not closed.
 * The rep's side (the rep, their managers, an integration's key) comments and withdraws; admins comment, add
 * internal notes, assign, review, resolve and reject.
 */
export const INQUIRY_RULES: Readonly<Record<InquiryAction, Rule>> = {
  view: { parties: ['rep', 'admin', 'api_key'], from: INQUIRY_STATES, answersRep: false },
  comment: { parties: ['rep', 'admin', 'api_key'], from: NOT_CLOSED, answersRep: true },
  note: { parties: ['admin'], from: NOT_CLOSED, answersRep: false },
  withdraw: { parties: ['rep', 'api_key'], from: NOT_CLOSED, to: 'withdrawn', answersRep: false },
  assign: { parties: ['admin'], from: NOT_CLOSED, answersRep: false },
  start_review: { parties: ['admin'], from: ['open'], to: 'in_review', answersRep: true },
  resolve: { parties: ['admin'], from: NOT_CLOSED, to: 'resolved', answersRep: true },
  reject: { parties: ['admin'], from: NOT_CLOSED, to: 'rejected', answersRep: true },
};

/** Whether the party may see an inquiry about this rep: admins and keys see the org's, a rep their own and reports'. */
export function canSeeRep(party: InquiryParty, userId: string): boolean {
  return party.kind !== 'rep' || party.visibleUserIds.includes(userId);
}

export interface InquiryDecision {
  /** The state after the action. */
  state: InquiryState;
  /** The action is the first answer the rep's side sees: record the first-response time now. */
  firstResponse: boolean;
  /** The action closes the inquiry: record the time it closed. */
  closes: boolean;
}

/**
 * Decides an action on an inquiry, or refuses it. The checks run in this order, and the first that fails is the
 * refusal:
 * 1. `404 not_found`: a rep principal acting on an inquiry about a rep they cannot see (exactly as an id of another
 *    org);
 * 2. `403 forbidden`: the action is not one of the party's (the admin API offers only admins' actions and /v1 only
 *    the rep's side's, so neither API reaches this; it guards the service);
 * 3. `409 invalid_state`: the inquiry's state does not allow the action (it is closed, or already in review).
 */
export function decideInquiryAction(
  party: InquiryParty,
  action: InquiryAction,
  inquiry: { id: string; user_id: string; state: InquiryState; first_response_at: Date | null },
): InquiryDecision {
  if (!canSeeRep(party, inquiry.user_id)) throw new Refusal('not_found', `no inquiry ${inquiry.id}`);
  const rule = INQUIRY_RULES[action];
  if (!rule.parties.includes(party.kind)) {
    throw new Refusal('forbidden', `${describeAction(action)} is not an action of ${partyName(party)}`);
  }
  if (!rule.from.includes(inquiry.state)) {
    throw new Refusal(
      'invalid_state',
      `inquiry ${inquiry.id} is ${inquiry.state}; ${describeAction(action)} needs it ${rule.from.join(' or ')}`,
    );
  }
  const state = rule.to ?? inquiry.state;
  return {
    state,
    firstResponse: party.kind === 'admin' && rule.answersRep && inquiry.first_response_at === null,
    closes: CLOSED_STATES.includes(state) && !CLOSED_STATES.includes(inquiry.state),
  };
}

/** Opening an inquiry about this rep: a rep principal only for a rep they can see (else 404, as for another org). */
export function checkOpen(party: InquiryParty, userId: string): void {
  if (!canSeeRep(party, userId)) throw new Refusal('not_found', `no user ${userId}`);
}

function describeAction(action: InquiryAction): string {
  return action.replace('_', ' ');
}

function partyName(party: InquiryParty): string {
  return party.kind === 'rep' ? "the rep's side" : party.kind === 'admin' ? 'an admin' : 'an API key';
}

export function isInquiryState(value: string): value is InquiryState {
  return (INQUIRY_STATES as readonly string[]).includes(value);
}

export function isInquiryType(value: string): value is InquiryType {
  return (INQUIRY_TYPES as readonly string[]).includes(value);
}

export const MAX_MESSAGE_LENGTH = 4000;

/** A message, comment, note or reason: not blank, at most 4,000 characters; its leading and trailing blanks dropped. */
export function checkText(value: string, field: string): string {
  const text = value.trim();
  if (text === '') throw new Refusal('invalid_body', `${field}: must not be blank`);
  if (text.length > MAX_MESSAGE_LENGTH) {
    throw new Refusal('invalid_body', `${field}: at most ${MAX_MESSAGE_LENGTH} characters`);
  }
  return text;
}
