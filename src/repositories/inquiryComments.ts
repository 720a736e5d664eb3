import { newId } from '../lib/ids.ts';
import { sql, type Transaction } from './transaction.ts';

// The threads of inquiries: comments of the rep's side and admins, and admins' internal notes.

export interface InquiryCommentRecord {
  id: string;
  inquiry_id: string;
  author_kind: 'rep' | 'admin' | 'api_key';
  author_id: string;
  author_label: string;
  body: string;
  internal: boolean;
  created_at: Date;
}

export async function insert(
  tx: Transaction,
  orgId: string,
  comment: Omit<InquiryCommentRecord, 'id'>,
): Promise<InquiryCommentRecord> {
  const id = newId('inqc');
  await tx.query(sql`
    INSERT INTO inquiry_comments (id, org_id, inquiry_id, author_kind, author_id, author_label, body, internal, created_at)
    VALUES (${id}, ${orgId}, ${comment.inquiry_id}, ${comment.author_kind}, ${comment.author_id}, ${comment.author_label},
            ${comment.body}, ${comment.internal}, ${comment.created_at})`);
  return { id, ...comment };
}

/** The inquiry's thread, oldest first; without the internal notes unless asked for. */
export async function ofInquiry(
  tx: Transaction,
  orgId: string,
  inquiryId: string,
  options: { withInternal: boolean },
): Promise<InquiryCommentRecord[]> {
  const rows = await tx.query<InquiryCommentRecord>(sql`
    SELECT id, inquiry_id, author_kind, author_id, author_label, body, internal, created_at
    FROM inquiry_comments
    WHERE org_id = ${orgId} AND inquiry_id = ${inquiryId} AND (${options.withInternal}::boolean OR NOT internal)
    ORDER BY created_at, id`);
  return rows;
}
