import type { components as PublicSchemas } from '../../generated/openapi.ts';
import type { components as AdminSchemas } from '../../generated/openapi-admin.ts';
import type { InquiryRecord } from '../repositories/inquiries.ts';
import type { InquiryCommentRecord } from '../repositories/inquiryComments.ts';

// The one mapper of an inquiry to each contract: /v1 and its webhooks (the rep's side: no assignee, no internal
// notes) and the admin API (with both), also what `quotient inquiries --json` prints.

export type WireInquiry = PublicSchemas['schemas']['Inquiry'];
export type WireInquiryComment = PublicSchemas['schemas']['InquiryComment'];
export type WireAdminInquiry = AdminSchemas['schemas']['AdminInquiry'];

function amount(cents: number | null, currency: string | null): { amount_cents: number; currency: string } | null {
  return cents === null || currency === null ? null : { amount_cents: cents, currency };
}

function subject(record: InquiryRecord) {
  return {
    kind: record.subject_kind,
    earning_id: record.earning_id,
    deal_id: record.deal_id,
    period_id: record.period_id,
  };
}

function resolution(record: InquiryRecord) {
  if (record.state !== 'resolved') return null;
  return {
    amount_changed: amount(record.amount_changed_cents, record.amount_changed_currency),
    note: record.resolution_note ?? '',
    links: record.links.map((link) => ({ kind: link.kind, id: link.target_id })),
  };
}

function times(record: InquiryRecord) {
  return {
    created_at: record.created_at.toISOString(),
    updated_at: record.updated_at.toISOString(),
    first_response_at: record.first_response_at?.toISOString() ?? null,
    in_review_at: record.in_review_at?.toISOString() ?? null,
    closed_at: record.closed_at?.toISOString() ?? null,
  };
}

function publicAuthor(kind: 'rep' | 'admin' | 'api_key', id: string, label: string): WireInquiryComment['author'] {
  return { kind, user_id: kind === 'rep' ? id : null, label };
}

export function toWireInquiryComment(comment: InquiryCommentRecord): WireInquiryComment {
  return {
    id: comment.id,
    author: publicAuthor(comment.author_kind, comment.author_id, comment.author_label),
    body: comment.body,
    created_at: comment.created_at.toISOString(),
  };
}

/** The inquiry as /v1 and its webhooks show it; with its thread (internal notes left out) when given one. */
export function toWireInquiry(record: InquiryRecord, comments?: readonly InquiryCommentRecord[]): WireInquiry {
  return {
    id: record.id,
    user_id: record.user_id,
    user_external_id: record.user_external_id,
    subject: subject(record),
    type: record.type,
    expected_amount: amount(record.expected_amount_cents, record.expected_currency),
    message: record.message,
    state: record.state,
    assigned: record.assignee_admin_id !== null,
    opened_by: publicAuthor(record.opened_by_kind, record.opened_by_id, record.opened_by_label),
    resolution: resolution(record),
    rejection_reason: record.state === 'rejected' ? record.resolution_note : null,
    ...times(record),
    ...(comments ? { comments: comments.filter((comment) => !comment.internal).map(toWireInquiryComment) } : {}),
  };
}

/** The inquiry as the admin API shows it; with its whole thread when given one. */
export function toWireAdminInquiry(
  record: InquiryRecord,
  comments?: readonly InquiryCommentRecord[],
): WireAdminInquiry {
  return {
    id: record.id,
    user_id: record.user_id,
    user_external_id: record.user_external_id,
    subject: subject(record),
    type: record.type,
    expected_amount: amount(record.expected_amount_cents, record.expected_currency),
    message: record.message,
    state: record.state,
    assignee:
      record.assignee_admin_id === null
        ? null
        : { id: record.assignee_admin_id, email: record.assignee_email ?? record.assignee_admin_id },
    opened_by: { kind: record.opened_by_kind, id: record.opened_by_id, label: record.opened_by_label },
    resolution: resolution(record),
    rejection_reason: record.state === 'rejected' ? record.resolution_note : null,
    ...times(record),
    ...(comments
      ? {
          comments: comments.map((comment) => ({
            id: comment.id,
            author: { kind: comment.author_kind, id: comment.author_id, label: comment.author_label },
            body: comment.body,
            internal: comment.internal,
            created_at: comment.created_at.toISOString(),
          })),
        }
      : {}),
  };
}
