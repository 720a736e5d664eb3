import type { operations } from '../../../../generated/openapi-admin.ts';
import type { AdminServices } from '../../../composition.ts';
import { Refusal } from '../../../domain/refusal.ts';
import type { InquiryActor, InquiryWithThread } from '../../../services/inquiries.ts';
import { toWireAdminInquiry } from '../../../wire/inquiries.ts';
import { pageRequest } from '../../pages.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

type ListQuery = NonNullable<operations['listInquiries']['parameters']['query']>;

function withThread(found: InquiryWithThread) {
  return toWireAdminInquiry(found.inquiry, found.comments);
}

/** The queue's `assignee` filter: an admin's id, or `none` for the unassigned. */
function assigneeFilter(value: string | undefined): { assigneeAdminId?: string | null } {
  if (value === undefined) return {};
  return { assigneeAdminId: value === 'none' ? null : value };
}

function openedBefore(value: string | undefined): { openedBefore?: Date } {
  if (value === undefined) return {};
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new Refusal('invalid_body', 'opened_before: must be a date-time');
  return { openedBefore: at };
}

export function inquiryHandlers(
  services: AdminServices,
): Pick<
  AdminHandlers,
  | 'listInquiries'
  | 'openInquiry'
  | 'getInquiry'
  | 'assignInquiry'
  | 'startInquiryReview'
  | 'commentOnInquiry'
  | 'resolveInquiry'
  | 'rejectInquiry'
> {
  const desk = services.inquiries;
  /** The signed-in admin as the inquiries' actor, and their org. */
  function admin(res: Parameters<typeof adminContext>[0]): { orgId: string; actor: InquiryActor } {
    const { session, actor } = adminContext(res);
    return { orgId: session.org_id, actor: { kind: 'admin', admin: actor } };
  }
  return {
    listInquiries: async (req, res) => {
      const { orgId, actor } = admin(res);
      const query = req.query as ListQuery;
      const states = query.state === undefined ? undefined : [query.state].flat();
      const page = await desk.list(orgId, actor, {
        filters: {
          ...(states ? { states } : {}),
          ...(query.user_id === undefined ? {} : { userId: query.user_id }),
          ...assigneeFilter(query.assignee),
          ...openedBefore(query.opened_before),
        },
        ...pageRequest(query),
      });
      res.status(200).json({
        inquiries: page.inquiries.map((inquiry) => toWireAdminInquiry(inquiry)),
        next_cursor: page.nextCursor,
      });
    },

    openInquiry: async (req, res) => {
      const { orgId, actor } = admin(res);
      res.status(201).json(withThread(await desk.open(orgId, actor, req.body)));
    },

    getInquiry: async (req, res) => {
      const { orgId, actor } = admin(res);
      res.status(200).json(withThread(await desk.get(orgId, actor, req.params.id)));
    },

    assignInquiry: async (req, res) => {
      const { orgId, actor } = admin(res);
      res.status(200).json(withThread(await desk.assign(orgId, actor, req.params.id, req.body.assignee_id)));
    },

    startInquiryReview: async (req, res) => {
      const { orgId, actor } = admin(res);
      res.status(200).json(withThread(await desk.startReview(orgId, actor, req.params.id)));
    },

    commentOnInquiry: async (req, res) => {
      const { orgId, actor } = admin(res);
      res.status(201).json(withThread(await desk.comment(orgId, actor, req.params.id, req.body)));
    },

    resolveInquiry: async (req, res) => {
      const { orgId, actor } = admin(res);
      res.status(200).json(withThread(await desk.resolve(orgId, actor, req.params.id, req.body)));
    },

    rejectInquiry: async (req, res) => {
      const { orgId, actor } = admin(res);
      res.status(200).json(withThread(await desk.reject(orgId, actor, req.params.id, req.body.reason)));
    },
  };
}
