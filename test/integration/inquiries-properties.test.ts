import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe } from 'vitest';
import type { Database } from '../../src/db/prisma.ts';
import { Refusal } from '../../src/domain/refusal.ts';
import { ERROR_STATUS } from '../../src/http/errors.ts';
import { databaseStatements } from '../../src/repositories/transaction.ts';
import * as users from '../../src/repositories/users.ts';
import type { InquiryActor } from '../../src/services/inquiries.ts';
import { createOrg } from '../factories/access.ts';
import { createAdmin } from '../factories/admins.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// Random sequences of inquiry actions by a rep, their manager, another rep and an admin, through the one service
// both APIs call. A reference model written here, independently of src/domain/inquiries.ts, says what each action
// should do: every action the model refuses must be refused with the documented code (and its status), and leave
// every row it could have touched as it was (the inquiry, the threads, the resolution links, the audit log, the
// webhook outbox); every action it allows must succeed and move the inquiry where the model says.

type Who = 'rep' | 'manager' | 'other' | 'admin';
type Action =
  | 'open'
  | 'view'
  | 'comment'
  | 'note'
  | 'withdraw'
  | 'assign'
  | 'unassign'
  | 'start_review'
  | 'resolve'
  | 'reject';
type State = 'open' | 'in_review' | 'resolved' | 'rejected' | 'withdrawn';

const WHO: Who[] = ['rep', 'manager', 'other', 'admin'];
const ACTIONS: Action[] = [
  'open',
  'view',
  'comment',
  'note',
  'withdraw',
  'assign',
  'unassign',
  'start_review',
  'resolve',
  'reject',
];
const SUBJECT_REPS: Array<Exclude<Who, 'admin'>> = ['rep', 'manager', 'other'];
const NOT_CLOSED: State[] = ['open', 'in_review'];
/** The statuses docs/inquiries.md gives each refusal. */
const DOCUMENTED_STATUS = { not_found: 404, forbidden: 403, invalid_state: 409 } as const;

/** Who does what; `target` picks an inquiry opened so far (modulo their number), or for `open` the rep it is about. */
const steps = fc.array(
  fc.record({
    who: fc.constantFrom(...WHO),
    action: fc.constantFrom(...ACTIONS),
    target: fc.nat({ max: 5 }),
  }),
  { minLength: 1, maxLength: 14 },
);

/** Whose inquiries each party may see: a rep their own, the manager theirs and their report's, admins all. */
function sees(who: Who, about: Exclude<Who, 'admin'>): boolean {
  if (who === 'admin') return true;
  if (who === 'manager') return about === 'manager' || about === 'rep';
  return who === about;
}

/** The model: the refusal code of an action, or the state it leaves the inquiry in. */
function expected(
  who: Who,
  action: Exclude<Action, 'open'>,
  inquiry: { about: Exclude<Who, 'admin'>; state: State },
): { refused: 'not_found' | 'forbidden' | 'invalid_state' } | { state: State } {
  if (!sees(who, inquiry.about)) return { refused: 'not_found' };
  const admin = who === 'admin';
  const adminOnly = ['note', 'assign', 'unassign', 'start_review', 'resolve', 'reject'].includes(action);
  if ((adminOnly && !admin) || (action === 'withdraw' && admin)) return { refused: 'forbidden' };
  if (action === 'view') return { state: inquiry.state };
  if (action === 'start_review')
    return inquiry.state === 'open' ? { state: 'in_review' } : { refused: 'invalid_state' };
  if (!NOT_CLOSED.includes(inquiry.state)) return { refused: 'invalid_state' };
  const next: Partial<Record<Action, State>> = { withdraw: 'withdrawn', resolve: 'resolved', reject: 'rejected' };
  return { state: next[action] ?? inquiry.state };
}

/** Everything of the org a refused action could have touched. */
async function snapshot(db: Database, orgId: string) {
  const [inquiries, comments, links, audit, messages] = await Promise.all([
    db.inquiry.findMany({ where: { org_id: orgId }, orderBy: { id: 'asc' } }),
    db.inquiryComment.count({ where: { org_id: orgId } }),
    db.inquiryLink.count({ where: { org_id: orgId } }),
    db.auditEntry.count({ where: { org_id: orgId } }),
    db.webhookMessage.count({ where: { org_id: orgId } }),
  ]);
  return { inquiries, comments, links, audit, messages };
}

describe('inquiries over random sequences of actions', () => {
  test('no illegal transition succeeds, each refusal is the documented code, and a refusal changes nothing', async ({
    db,
  }) => {
    const desk = testServices({ db }).admin.inquiries;
    await fc.assert(
      fc.asyncProperty(steps, async (sequence) => {
        const org = await createOrg(db);
        const statements = databaseStatements(db);
        const ids = {
          rep: await users.ensureRep(statements, org.id, 'rep-017'),
          manager: await users.ensureRep(statements, org.id, 'mgr-001'),
          other: await users.ensureRep(statements, org.id, 'rep-018'),
        };
        const { admin } = await createAdmin(db, org.id);
        await createEndpoint(db, org.id, 'http://127.0.0.1:9/inquiries');
        const actors: Record<Who, InquiryActor> = {
          rep: { kind: 'rep', userId: ids.rep, visibleUserIds: [ids.rep] },
          manager: { kind: 'rep', userId: ids.manager, visibleUserIds: [ids.manager, ids.rep] },
          other: { kind: 'rep', userId: ids.other, visibleUserIds: [ids.other] },
          admin: { kind: 'admin', admin: { kind: 'cli' } },
        };
        const opened: Array<{ id: string; about: Exclude<Who, 'admin'>; state: State }> = [];

        for (const step of sequence) {
          const before = await snapshot(db, org.id);
          const actor = actors[step.who];
          let outcome: { refused: string } | { state: State };
          let model: { refused: string } | { state: State };
          let inquiry: (typeof opened)[number] | undefined;
          const run = async (call: () => Promise<{ inquiry: { id: string; state: string } }>) => {
            try {
              const done = await call();
              return { state: done.inquiry.state as State, id: done.inquiry.id };
            } catch (error) {
              if (!(error instanceof Refusal)) throw error;
              return { refused: error.code };
            }
          };

          const opening = step.action === 'open' || opened.length === 0;
          if (step.action === 'open' || opened.length === 0) {
            const about = SUBJECT_REPS[step.target % SUBJECT_REPS.length] as Exclude<Who, 'admin'>;
            model = sees(step.who, about) ? { state: 'open' } : { refused: 'not_found' };
            const result = await run(() =>
              desk.open(org.id, actor, {
                subject: { kind: 'statement', period_id: '2026-04' },
                user_id: ids[about],
                type: 'other',
                message: `${step.who} asks about ${about}`,
              }),
            );
            outcome = result;
            if ('id' in result && result.id) opened.push({ id: result.id, about, state: 'open' });
          } else {
            inquiry = opened[step.target % opened.length] as (typeof opened)[number];
            const id = inquiry.id;
            model = expected(step.who, step.action, inquiry);
            const calls: Record<Exclude<Action, 'open'>, () => Promise<{ inquiry: { id: string; state: string } }>> = {
              view: () => desk.get(org.id, actor, id),
              comment: () => desk.comment(org.id, actor, id, { body: `${step.who} says` }),
              note: () => desk.comment(org.id, actor, id, { body: 'internal', internal: true }),
              withdraw: () => desk.withdraw(org.id, actor, id),
              assign: () => desk.assign(org.id, actor, id, admin.id),
              unassign: () => desk.assign(org.id, actor, id, null),
              start_review: () => desk.startReview(org.id, actor, id),
              resolve: () =>
                desk.resolve(org.id, actor, id, {
                  note: 'settled',
                  amount_changed: { amount_cents: 1500, currency: 'USD' },
                  links: [{ kind: 'recompute' }],
                }),
              reject: () => desk.reject(org.id, actor, id, 'paid right'),
            };
            outcome = await run(calls[step.action]);
          }

          const context = `${step.who} ${opening ? 'open' : step.action} on ${JSON.stringify(inquiry ?? null)}`;
          if ('refused' in model) {
            assert.deepEqual(outcome, { refused: model.refused }, context);
            assert.equal(
              ERROR_STATUS[model.refused as keyof typeof ERROR_STATUS],
              DOCUMENTED_STATUS[model.refused as keyof typeof DOCUMENTED_STATUS],
            );
            assert.deepEqual(await snapshot(db, org.id), before, `${context}: a refusal changed nothing`);
            continue;
          }
          assert.ok('state' in outcome, `${context}: allowed, but refused with ${JSON.stringify(outcome)}`);
          assert.equal(outcome.state, model.state, context);
          if (inquiry) inquiry.state = model.state;

          const after = await snapshot(db, org.id);
          const writes = opening || step.action !== 'view';
          assert.equal(after.audit, before.audit + (writes ? 1 : 0), `${context}: one audit entry per step`);
          const announced = opening || (writes && step.action !== 'note');
          assert.equal(
            after.messages,
            before.messages + (announced ? 1 : 0),
            `${context}: one webhook per visible step`,
          );
        }

        for (const { id, state } of opened) {
          const row = await db.inquiry.findUnique({ where: { org_id_id: { org_id: org.id, id } } });
          assert.equal(row?.state, state);
          assert.equal(row?.closed_at !== null, ['resolved', 'rejected', 'withdrawn'].includes(state));
        }
      }),
      { numRuns: 15 },
    );
  });
});
