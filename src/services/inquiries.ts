import type { AdminActor } from '../audit/adminEntries.ts';
import {
  checkOpen,
  checkText,
  decideInquiryAction,
  type InquiryAction,
  type InquiryState,
  type InquirySubjectKind,
  type InquiryType,
  type ResolutionLinkKind,
} from '../domain/inquiries.ts';
import { keysetCursor, keysetFingerprint } from '../domain/lists/keysetCursor.ts';
import { Refusal } from '../domain/refusal.ts';
import * as admins from '../repositories/admins.ts';
import * as audit from '../repositories/audit.ts';
import type { InquiryFilters, InquiryRecord } from '../repositories/inquiries.ts';
import * as inquiries from '../repositories/inquiries.ts';
import type { InquiryCommentRecord } from '../repositories/inquiryComments.ts';
import * as inquiryComments from '../repositories/inquiryComments.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import { toWireInquiry, toWireInquiryComment } from '../wire/inquiries.ts';
import { auditEntry, authorOf, checkLinks, partyOf, subjectOf } from './inquirySteps.ts';
import { enqueueWebhookEvent } from './webhookOutbox.ts';

// Inquiries as one use case for every caller: /v1 (a rep principal or an API key), the admin API and the CLI (an
// admin). Each change is one transaction: the inquiry's row locked, the rules of src/domain/inquiries.ts decided,
// the change, its comment, its audit entry and its webhook written together, so a refused change writes nothing.

/** The request an action came in, for the audit entry of a rep's or a key's action. */
export interface InquiryRequest {
  requestId: string;
  method: string;
  route: string;
  clientIp: string | null;
  userAgent: string | null;
}

/**
 * Who acts. `rep`: a rep principal (a rep token, the portal): the rep and the users they may see (themselves and,
 * transitively, their reports); `admin`: the console's signed-in admin or the CLI; `api_key`: an integration.
 */
export type InquiryActor =
  | {
      kind: 'rep';
      userId: string;
      visibleUserIds: readonly string[];
      tokenId?: string | null;
      request?: InquiryRequest;
    }
  | { kind: 'admin'; admin: AdminActor }
  | { kind: 'api_key'; keyId: string; keyName: string; request?: InquiryRequest };

export interface OpenInquiryInput {
  subject: { kind: InquirySubjectKind; earning_id?: string; deal_id?: string; period_id?: string };
  user_id?: string;
  type: InquiryType;
  expected_amount?: { amount_cents: number; currency: string };
  message: string;
}

export interface ResolveInquiryInput {
  note: string;
  amount_changed: { amount_cents: number; currency: string } | null;
  links: ReadonlyArray<{ kind: ResolutionLinkKind; id?: string | null }>;
}

export interface InquiryWithThread {
  inquiry: InquiryRecord;
  /** The thread the actor may see: internal notes for admins only. */
  comments: InquiryCommentRecord[];
}

export interface InquiryListQuery {
  filters: {
    states?: readonly InquiryState[];
    userId?: string;
    /** An admin's id, or null for the unassigned. */
    assigneeAdminId?: string | null;
    openedBefore?: Date;
  };
  limit: number;
  cursor?: string;
}

/**
 * Where adjustments live, for a resolution that names one: the composition root passes the adjustments'
 * repository, so an id the org has no adjustment for is refused. Absent (a desk built alone), only the id's form is
 * checked (`adj_…`).
 */
export interface AdjustmentLookup {
  exists(tx: Transaction, orgId: string, adjustmentId: string): Promise<boolean>;
}

export const INQUIRY_CURSOR = keysetCursor({ idPrefix: 'inq', timeMember: 'c' });

type UpdateChange = 'commented' | 'assigned' | 'review_started' | 'resolved' | 'rejected' | 'withdrawn';

export class InquiryDesk {
  readonly #db: Transactor;
  readonly #statements: Transaction;
  readonly #adjustments: AdjustmentLookup | undefined;

  constructor(db: Transactor, options: { adjustments?: AdjustmentLookup } = {}) {
    this.#db = db;
    this.#statements = db.statements;
    this.#adjustments = options.adjustments;
  }

  /** Opens an inquiry: `inquiry.created`, audited. A subject or rep the actor cannot see is `not_found`. */
  async open(orgId: string, actor: InquiryActor, input: OpenInquiryInput): Promise<InquiryWithThread> {
    const message = checkText(input.message, 'message');
    return this.#db.run(async (tx) => {
      const subject = await subjectOf(tx, orgId, actor, input);
      const rep = await users.find(tx, orgId, subject.userId);
      if (!rep) throw new Refusal('not_found', `no user ${subject.userId}`);
      checkOpen(partyOf(actor), rep.id);
      const author = await authorOf(tx, orgId, actor);
      const at = new Date();
      const id = await inquiries.insert(tx, orgId, {
        userId: rep.id,
        subjectKind: input.subject.kind,
        earningId: subject.earningId,
        dealId: subject.dealId,
        periodId: subject.periodId,
        type: input.type,
        expected: input.expected_amount ?? null,
        message,
        openedBy: author,
        at,
      });
      const inquiry = (await inquiries.find(tx, orgId, id)) as InquiryRecord;
      await audit.insertMany(tx, [
        auditEntry(orgId, actor, 'inquiry.opened', {
          inquiry_id: id,
          user_id: rep.id,
          subject: input.subject.kind,
          type: input.type,
        }),
      ]);
      await enqueueWebhookEvent(tx, orgId, 'inquiry.created', { inquiry: toWireInquiry(inquiry) }, { timestamp: at });
      return { inquiry, comments: [] };
    });
  }

  /** One inquiry and the thread the actor may see; an inquiry they may not see is `not_found`. */
  async get(orgId: string, actor: InquiryActor, id: string): Promise<InquiryWithThread> {
    const inquiry = await inquiries.find(this.#statements, orgId, id);
    if (!inquiry) throw new Refusal('not_found', `no inquiry ${id}`);
    decideInquiryAction(partyOf(actor), 'view', inquiry);
    const comments = await inquiryComments.ofInquiry(this.#statements, orgId, id, {
      withInternal: actor.kind === 'admin',
    });
    return { inquiry, comments };
  }

  /**
   * A page of the inquiries the actor may see: an admin's queue oldest first, the rep's side's newest first. A
   * rep filtering on a rep they cannot see gets an empty page.
   */
  async list(
    orgId: string,
    actor: InquiryActor,
    query: InquiryListQuery,
  ): Promise<{ inquiries: InquiryRecord[]; nextCursor: string | null }> {
    const { filters } = query;
    const order = actor.kind === 'admin' ? 'oldest_first' : 'newest_first';
    const fingerprint = keysetFingerprint(orgId, {
      order,
      states: filters.states ? [...filters.states].sort() : null,
      user_id: filters.userId ?? null,
      assignee: filters.assigneeAdminId === undefined ? '*' : filters.assigneeAdminId,
      opened_before: filters.openedBefore?.toISOString() ?? null,
    });
    const position = query.cursor === undefined ? null : INQUIRY_CURSOR.decode(query.cursor, fingerprint);
    const repository: InquiryFilters = {
      ...(filters.states ? { states: filters.states } : {}),
      ...(filters.userId === undefined ? {} : { userId: filters.userId }),
      ...(filters.assigneeAdminId === undefined ? {} : { assigneeAdminId: filters.assigneeAdminId }),
      ...(filters.openedBefore ? { openedBefore: filters.openedBefore } : {}),
      ...(actor.kind === 'rep' ? { userIds: actor.visibleUserIds } : {}),
    };
    const rows = await inquiries.listPage(this.#statements, orgId, repository, position, query.limit + 1, order);
    const page = INQUIRY_CURSOR.page(rows, query.limit, fingerprint, (row) => ({ at: row.created_at, id: row.id }));
    return { inquiries: page.items, nextCursor: page.nextCursor };
  }

  /** A comment (or, for admins, an internal note) on an inquiry that is not closed. */
  async comment(
    orgId: string,
    actor: InquiryActor,
    id: string,
    input: { body: string; internal?: boolean },
  ): Promise<InquiryWithThread> {
    const body = checkText(input.body, 'body');
    const internal = input.internal === true;
    return this.#change(orgId, actor, id, internal ? 'note' : 'comment', async (tx, inquiry) => {
      const author = await authorOf(tx, orgId, actor);
      const comment = await inquiryComments.insert(tx, orgId, {
        inquiry_id: inquiry.id,
        author_kind: author.kind,
        author_id: author.id,
        author_label: author.label,
        body,
        internal,
        created_at: new Date(),
      });
      return {
        auditAction: internal ? 'inquiry.noted' : 'inquiry.commented',
        details: { comment_id: comment.id },
        ...(internal ? {} : { announce: { change: 'commented' as const, comment } }),
      };
    });
  }

  /** The rep's side takes the inquiry back. */
  withdraw(orgId: string, actor: InquiryActor, id: string): Promise<InquiryWithThread> {
    return this.#change(orgId, actor, id, 'withdraw', async () => ({
      auditAction: 'inquiry.withdrawn',
      details: {},
      announce: { change: 'withdrawn' },
    }));
  }

  /** Gives the inquiry to an active admin of the org with the `admin` role, or to nobody (null). */
  assign(orgId: string, actor: InquiryActor, id: string, assigneeId: string | null): Promise<InquiryWithThread> {
    return this.#change(orgId, actor, id, 'assign', async (tx) => {
      if (assigneeId !== null) {
        const assignee = await admins.findForOrg(tx, orgId, assigneeId);
        if (!assignee || assignee.disabled_at !== null || assignee.role !== 'admin') {
          throw new Refusal('invalid_body', `assignee_id: ${assigneeId} is not an active admin of the org`);
        }
      }
      return {
        auditAction: 'inquiry.assigned',
        details: { assignee_id: assigneeId },
        assignee: { adminId: assigneeId },
        announce: { change: 'assigned' },
      };
    });
  }

  startReview(orgId: string, actor: InquiryActor, id: string): Promise<InquiryWithThread> {
    return this.#change(orgId, actor, id, 'start_review', async () => ({
      auditAction: 'inquiry.review_started',
      details: {},
      announce: { change: 'review_started' },
    }));
  }

  /**
   * Resolves the inquiry with what settled it and the amount that changed. A source event must exist in the org;
   * an adjustment must be one of the org's (when the desk looks adjustments up, as composed); a recompute names no id.
   */
  resolve(orgId: string, actor: InquiryActor, id: string, input: ResolveInquiryInput): Promise<InquiryWithThread> {
    const note = checkText(input.note, 'note');
    if (input.links.length === 0) throw new Refusal('invalid_body', 'links: name at least one thing that settled it');
    return this.#change(orgId, actor, id, 'resolve', async (tx, inquiry) => {
      const links = await checkLinks(tx, orgId, input.links, this.#adjustments);
      await inquiries.insertLinks(tx, orgId, inquiry.id, links);
      return {
        auditAction: 'inquiry.resolved',
        details: { amount_changed: input.amount_changed, links: links.map((l) => ({ kind: l.kind, id: l.target_id })) },
        resolution: { amountChanged: input.amount_changed, note },
        announce: { change: 'resolved' },
      };
    });
  }

  reject(orgId: string, actor: InquiryActor, id: string, reason: string): Promise<InquiryWithThread> {
    const text = checkText(reason, 'reason');
    return this.#change(orgId, actor, id, 'reject', async () => ({
      auditAction: 'inquiry.rejected',
      details: { reason: text },
      resolution: { amountChanged: null, note: text },
      announce: { change: 'rejected' },
    }));
  }

  /**
   * One change: lock the row, decide (404 → 403 → 409), run the action's own checks and writes, then the
   * inquiry's new state and times, the audit entry and `inquiry.updated`, all in one transaction.
   */
  async #change(
    orgId: string,
    actor: InquiryActor,
    id: string,
    action: Exclude<InquiryAction, 'view'>,
    work: (
      tx: Transaction,
      inquiry: InquiryRecord,
    ) => Promise<{
      auditAction: string;
      details: Record<string, unknown>;
      assignee?: { adminId: string | null };
      resolution?: { amountChanged: { amount_cents: number; currency: string } | null; note: string };
      announce?: { change: UpdateChange; comment?: InquiryCommentRecord };
    }>,
  ): Promise<InquiryWithThread> {
    return this.#db.run(async (tx) => {
      const before = await inquiries.lockForChange(tx, orgId, id);
      if (!before) throw new Refusal('not_found', `no inquiry ${id}`);
      const decision = decideInquiryAction(partyOf(actor), action, before);
      const done = await work(tx, before);
      const at = new Date();
      await inquiries.applyChange(tx, orgId, id, {
        state: decision.state,
        at,
        firstResponse: decision.firstResponse,
        inReview: decision.state === 'in_review' && before.state !== 'in_review',
        closes: decision.closes,
        ...(done.assignee ? { assignee: done.assignee } : {}),
        ...(done.resolution ? { resolution: done.resolution } : {}),
      });
      const inquiry = (await inquiries.find(tx, orgId, id)) as InquiryRecord;
      await audit.insertMany(tx, [
        auditEntry(orgId, actor, done.auditAction, {
          inquiry_id: id,
          from: before.state,
          to: inquiry.state,
          ...done.details,
        }),
      ]);
      if (done.announce) {
        await enqueueWebhookEvent(
          tx,
          orgId,
          'inquiry.updated',
          {
            inquiry: toWireInquiry(inquiry),
            change: done.announce.change,
            previous_state: before.state,
            ...(done.announce.comment ? { comment: toWireInquiryComment(done.announce.comment) } : {}),
          },
          { timestamp: at },
        );
      }
      const comments = await inquiryComments.ofInquiry(tx, orgId, id, { withInternal: actor.kind === 'admin' });
      return { inquiry, comments };
    });
  }
}
