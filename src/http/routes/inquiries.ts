import type { Response } from 'express';
import type { operations } from '../../../generated/openapi.ts';
import type { InquiryActor, InquiryDesk, InquiryWithThread } from '../../services/inquiries.ts';
import { toWireInquiry } from '../../wire/inquiries.ts';
import type { RequestAuth } from '../middleware/authenticate.ts';
import type { ContractOperation } from '../operations.ts';
import { pageRequest } from '../pages.ts';
import type { PublicHandlers } from './index.ts';

type ListQuery = NonNullable<operations['listInquiries']['parameters']['query']>;
type OpenBody = operations['openInquiry']['requestBody']['content']['application/json'];
type CommentBody = operations['commentOnInquiry']['requestBody']['content']['application/json'];
type Inquiry = operations['getInquiry']['responses'][200]['content']['application/json'];
type InquiryList = operations['listInquiries']['responses'][200]['content']['application/json'];

export interface InquiryRouteDeps {
  inquiries: InquiryDesk;
}

/**
 * Who calls: the one place /v1 turns the request's principal into the inquiries' actor. An API key acts for the
 * whole org (its scopes checked by the contract); a rep principal sees and acts on its visible reps' inquiries.
 */
export function inquiryActorOf(
  req: { method: string; ip?: string | undefined; get(name: string): string | undefined },
  res: Response,
): { orgId: string; actor: InquiryActor } {
  const auth = res.locals.auth as RequestAuth;
  const request = {
    requestId: res.locals.requestId as string,
    method: req.method,
    route: (res.locals.operation as ContractOperation).pathTemplate,
    clientIp: req.ip ?? null,
    userAgent: req.get('user-agent') ?? null,
  };
  if (auth.kind === 'rep') {
    const { userId, visibleUserIds, tokenId } = auth.viewer;
    return { orgId: auth.orgId, actor: { kind: 'rep', userId, visibleUserIds, tokenId, request } };
  }
  return { orgId: auth.orgId, actor: { kind: 'api_key', keyId: auth.keyId, keyName: auth.key.name, request } };
}

function withThread(found: InquiryWithThread): Inquiry {
  return toWireInquiry(found.inquiry, found.comments);
}

export function inquiryHandlers(
  deps: InquiryRouteDeps,
): Pick<PublicHandlers, 'listInquiries' | 'openInquiry' | 'getInquiry' | 'commentOnInquiry' | 'withdrawInquiry'> {
  return {
    listInquiries: async (req, res) => {
      const { orgId, actor } = inquiryActorOf(req, res);
      const query = req.query as ListQuery;
      const page = await deps.inquiries.list(orgId, actor, {
        filters: {
          ...(query.state === undefined ? {} : { states: [query.state] }),
          ...(query.user_id === undefined ? {} : { userId: query.user_id }),
        },
        ...pageRequest(query),
      });
      const body: InquiryList = {
        inquiries: page.inquiries.map((inquiry) => toWireInquiry(inquiry)),
        next_cursor: page.nextCursor,
      };
      res.json(body);
    },

    openInquiry: async (req, res) => {
      const { orgId, actor } = inquiryActorOf(req, res);
      const body = req.body as OpenBody;
      res.status(201).json(withThread(await deps.inquiries.open(orgId, actor, body)));
    },

    getInquiry: async (req, res) => {
      const { orgId, actor } = inquiryActorOf(req, res);
      res.json(withThread(await deps.inquiries.get(orgId, actor, req.params.id as string)));
    },

    commentOnInquiry: async (req, res) => {
      const { orgId, actor } = inquiryActorOf(req, res);
      const body = req.body as CommentBody;
      res.status(201).json(withThread(await deps.inquiries.comment(orgId, actor, req.params.id as string, body)));
    },

    withdrawInquiry: async (req, res) => {
      const { orgId, actor } = inquiryActorOf(req, res);
      res.json(withThread(await deps.inquiries.withdraw(orgId, actor, req.params.id as string)));
    },
  };
}
