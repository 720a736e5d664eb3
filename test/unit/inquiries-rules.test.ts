import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  checkOpen,
  decideInquiryAction,
  INQUIRY_ACTIONS,
  INQUIRY_STATES,
  type InquiryAction,
  type InquiryParty,
  type InquiryState,
} from '../../src/domain/inquiries.ts';
import { Refusal } from '../../src/domain/refusal.ts';

const rep: InquiryParty = { kind: 'rep', userId: 'user_rep', visibleUserIds: ['user_rep'] };
const manager: InquiryParty = { kind: 'rep', userId: 'user_mgr', visibleUserIds: ['user_mgr', 'user_rep'] };
const otherRep: InquiryParty = { kind: 'rep', userId: 'user_other', visibleUserIds: ['user_other'] };
const admin: InquiryParty = { kind: 'admin' };
const key: InquiryParty = { kind: 'api_key' };

function inquiry(state: InquiryState, firstResponse: Date | null = null) {
  return { id: 'inq_1', user_id: 'user_rep', state, first_response_at: firstResponse };
}

function outcome(party: InquiryParty, action: InquiryAction, state: InquiryState): string {
  try {
    return `→ ${decideInquiryAction(party, action, inquiry(state)).state}`;
  } catch (error) {
    assert.ok(error instanceof Refusal);
    return error.code;
  }
}

// The whole table, written out: (who, action) → the outcome in each state, in the order of INQUIRY_STATES
// (open, in_review, resolved, rejected, withdrawn).
const TABLE: Array<[string, InquiryParty, InquiryAction, string[]]> = [
  ['rep', rep, 'view', ['→ open', '→ in_review', '→ resolved', '→ rejected', '→ withdrawn']],
  ['rep', rep, 'comment', ['→ open', '→ in_review', 'invalid_state', 'invalid_state', 'invalid_state']],
  ['rep', rep, 'withdraw', ['→ withdrawn', '→ withdrawn', 'invalid_state', 'invalid_state', 'invalid_state']],
  ['rep', rep, 'note', ['forbidden', 'forbidden', 'forbidden', 'forbidden', 'forbidden']],
  ['rep', rep, 'resolve', ['forbidden', 'forbidden', 'forbidden', 'forbidden', 'forbidden']],
  ['manager', manager, 'withdraw', ['→ withdrawn', '→ withdrawn', 'invalid_state', 'invalid_state', 'invalid_state']],
  ['manager', manager, 'comment', ['→ open', '→ in_review', 'invalid_state', 'invalid_state', 'invalid_state']],
  ['other rep', otherRep, 'view', ['not_found', 'not_found', 'not_found', 'not_found', 'not_found']],
  ['other rep', otherRep, 'comment', ['not_found', 'not_found', 'not_found', 'not_found', 'not_found']],
  ['other rep', otherRep, 'withdraw', ['not_found', 'not_found', 'not_found', 'not_found', 'not_found']],
  ['api key', key, 'withdraw', ['→ withdrawn', '→ withdrawn', 'invalid_state', 'invalid_state', 'invalid_state']],
  ['api key', key, 'assign', ['forbidden', 'forbidden', 'forbidden', 'forbidden', 'forbidden']],
  ['admin', admin, 'view', ['→ open', '→ in_review', '→ resolved', '→ rejected', '→ withdrawn']],
  ['admin', admin, 'comment', ['→ open', '→ in_review', 'invalid_state', 'invalid_state', 'invalid_state']],
  ['admin', admin, 'note', ['→ open', '→ in_review', 'invalid_state', 'invalid_state', 'invalid_state']],
  ['admin', admin, 'assign', ['→ open', '→ in_review', 'invalid_state', 'invalid_state', 'invalid_state']],
  ['admin', admin, 'start_review', ['→ in_review', 'invalid_state', 'invalid_state', 'invalid_state', 'invalid_state']],
  ['admin', admin, 'resolve', ['→ resolved', '→ resolved', 'invalid_state', 'invalid_state', 'invalid_state']],
  ['admin', admin, 'reject', ['→ rejected', '→ rejected', 'invalid_state', 'invalid_state', 'invalid_state']],
  ['admin', admin, 'withdraw', ['forbidden', 'forbidden', 'forbidden', 'forbidden', 'forbidden']],
];

describe('the inquiry state machine', () => {
  test.each(TABLE)('%s %s', (_who, party, action, expected) => {
    assert.deepEqual(
      INQUIRY_STATES.map((state) => outcome(party, action, state)),
      expected,
    );
  });

  test('a rep who cannot see the inquiry gets 404 for every action, before any other check', () => {
    for (const action of INQUIRY_ACTIONS) {
      for (const state of INQUIRY_STATES) assert.equal(outcome(otherRep, action, state), 'not_found');
    }
  });

  test('the first answer an admin gives records the first response; a note, an assignment or a rep do not', () => {
    assert.equal(decideInquiryAction(admin, 'comment', inquiry('open')).firstResponse, true);
    assert.equal(decideInquiryAction(admin, 'start_review', inquiry('open')).firstResponse, true);
    assert.equal(decideInquiryAction(admin, 'reject', inquiry('open')).firstResponse, true);
    assert.equal(decideInquiryAction(admin, 'note', inquiry('open')).firstResponse, false);
    assert.equal(decideInquiryAction(admin, 'assign', inquiry('open')).firstResponse, false);
    assert.equal(decideInquiryAction(rep, 'comment', inquiry('open')).firstResponse, false);
    assert.equal(decideInquiryAction(admin, 'comment', inquiry('in_review', new Date())).firstResponse, false);
  });

  test('closing moves record the close; others do not', () => {
    assert.equal(decideInquiryAction(admin, 'resolve', inquiry('in_review')).closes, true);
    assert.equal(decideInquiryAction(rep, 'withdraw', inquiry('open')).closes, true);
    assert.equal(decideInquiryAction(admin, 'start_review', inquiry('open')).closes, false);
  });

  test('a rep opens inquiries only about reps they can see', () => {
    checkOpen(manager, 'user_rep');
    checkOpen(admin, 'user_other');
    assert.throws(() => checkOpen(rep, 'user_mgr'), { code: 'not_found' });
  });
});
