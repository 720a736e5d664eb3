import type { InquiryState, InquirySubjectKind, InquiryType, ResolutionLinkKind } from '../domain/inquiries.ts';
import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import { newId } from '../lib/ids.ts';
import { sql, statementParameters, type Transaction } from './transaction.ts';
import { repExternalIdOf } from './users.ts';

// Inquiries and the links of their resolutions (docs/inquiries.md). Plain SQL, so a change runs on whichever
// driver opened its transaction; a change locks its inquiry's row first (`lockForChange`).

export interface InquiryLinkRecord {
  kind: ResolutionLinkKind;
  /** The adjustment's or the source event's id; null for a recompute. */
  target_id: string | null;
}

export interface InquiryRecord {
  id: string;
  org_id: string;
  user_id: string;
  /** The rep's external id, for people. */
  user_external_id: string;
  subject_kind: InquirySubjectKind;
  earning_id: string | null;
  deal_id: string | null;
  period_id: string | null;
  type: InquiryType;
  expected_amount_cents: number | null;
  expected_currency: string | null;
  message: string;
  state: InquiryState;
  assignee_admin_id: string | null;
  assignee_email: string | null;
  opened_by_kind: 'rep' | 'admin' | 'api_key';
  opened_by_id: string;
  opened_by_label: string;
  created_at: Date;
  updated_at: Date;
  first_response_at: Date | null;
  in_review_at: Date | null;
  closed_at: Date | null;
  amount_changed_cents: number | null;
  amount_changed_currency: string | null;
  resolution_note: string | null;
  links: InquiryLinkRecord[];
}

interface InquiryRow extends Omit<InquiryRecord, 'expected_amount_cents' | 'amount_changed_cents' | 'links'> {
  expected_amount_cents: string | null;
  amount_changed_cents: string | null;
  links: InquiryLinkRecord[] | null;
}

const COLUMNS = `
  i.id, i.org_id, i.user_id, ${repExternalIdOf('$1', 'i')} AS user_external_id, i.subject_kind, i.earning_id,
  i.deal_id, i.period_id, i.type, i.expected_amount_cents::text AS expected_amount_cents, i.expected_currency,
  i.message, i.state, i.assignee_admin_id,
  (SELECT a.email FROM admins a WHERE a.org_id = $1 AND a.id = i.assignee_admin_id) AS assignee_email,
  i.opened_by_kind, i.opened_by_id, i.opened_by_label, i.created_at, i.updated_at, i.first_response_at,
  i.in_review_at, i.closed_at, i.amount_changed_cents::text AS amount_changed_cents, i.amount_changed_currency,
  i.resolution_note,
  (SELECT json_agg(json_build_object('kind', l.kind, 'target_id', l.target_id) ORDER BY l.position)
     FROM inquiry_links l WHERE l.org_id = $1 AND l.inquiry_id = i.id) AS links`;

// Each inquiry's rep is named by the users key (repExternalIdOf), not joined: among many small orgs a generic plan
// could scan a large org's reps again for each inquiry (docs/scaling.md, "A row's rep, by its key"). The assignee is
// read the same way, by the admins key. Every statement of COLUMNS binds the org as $1, and each subquery names it
// (on Citus a correlation to i.org_id binds nothing: docs/scaling.md#citus-rules-checked-without-citus).
const FROM = 'inquiries i';

function toRecord(row: InquiryRow): InquiryRecord {
  return {
    ...row,
    expected_amount_cents: row.expected_amount_cents === null ? null : Number(row.expected_amount_cents),
    amount_changed_cents: row.amount_changed_cents === null ? null : Number(row.amount_changed_cents),
    links: row.links ?? [],
  };
}

export interface NewInquiry {
  userId: string;
  subjectKind: InquirySubjectKind;
  earningId: string | null;
  dealId: string | null;
  periodId: string | null;
  type: InquiryType;
  expected: { amount_cents: number; currency: string } | null;
  message: string;
  openedBy: { kind: 'rep' | 'admin' | 'api_key'; id: string; label: string };
  at: Date;
}

export async function insert(tx: Transaction, orgId: string, inquiry: NewInquiry): Promise<string> {
  const id = newId('inq');
  await tx.query(sql`
    INSERT INTO inquiries (id, org_id, user_id, subject_kind, earning_id, deal_id, period_id, type,
                           expected_amount_cents, expected_currency, message, state, opened_by_kind, opened_by_id, opened_by_label,
                           created_at, updated_at)
    VALUES (${id}, ${orgId}, ${inquiry.userId}, ${inquiry.subjectKind}, ${inquiry.earningId}, ${inquiry.dealId},
            ${inquiry.periodId}, ${inquiry.type}, ${inquiry.expected?.amount_cents ?? null}::bigint,
            ${inquiry.expected?.currency ?? null}, ${inquiry.message}, 'open', ${inquiry.openedBy.kind},
            ${inquiry.openedBy.id}, ${inquiry.openedBy.label}, ${inquiry.at}, ${inquiry.at})
    RETURNING id`);
  return id;
}

export async function find(tx: Transaction, orgId: string, id: string): Promise<InquiryRecord | null> {
  const rows = await tx.query<InquiryRow>({
    text: `SELECT ${COLUMNS} FROM ${FROM} WHERE i.org_id = $1 AND i.id = $2`,
    values: [orgId, id],
  });
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Locks the inquiry's row until the transaction ends, so two changes of one inquiry run one after the other. */
export async function lockForChange(tx: Transaction, orgId: string, id: string): Promise<InquiryRecord | null> {
  const locked = await tx.query<{ id: string }>(
    sql`SELECT id FROM inquiries WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`,
  );
  return locked.length === 0 ? null : find(tx, orgId, id);
}

/** What a change writes: the state, the times and the resolution it records. */
export interface InquiryChange {
  state: InquiryState;
  at: Date;
  firstResponse: boolean;
  inReview: boolean;
  closes: boolean;
  /** Changes the assignee (null: nobody). */
  assignee?: { adminId: string | null };
  resolution?: { amountChanged: { amount_cents: number; currency: string } | null; note: string };
}

export async function applyChange(tx: Transaction, orgId: string, id: string, change: InquiryChange): Promise<void> {
  const assign = change.assignee !== undefined;
  const resolve = change.resolution !== undefined;
  await tx.query(sql`
    UPDATE inquiries SET
      state = ${change.state},
      updated_at = ${change.at},
      first_response_at = CASE WHEN ${change.firstResponse}::boolean THEN ${change.at}::timestamptz ELSE first_response_at END,
      in_review_at = CASE WHEN ${change.inReview}::boolean THEN ${change.at}::timestamptz ELSE in_review_at END,
      closed_at = CASE WHEN ${change.closes}::boolean THEN ${change.at}::timestamptz ELSE closed_at END,
      assignee_admin_id = CASE WHEN ${assign}::boolean THEN ${change.assignee?.adminId ?? null}::text ELSE assignee_admin_id END,
      amount_changed_cents = CASE WHEN ${resolve}::boolean
        THEN ${change.resolution?.amountChanged?.amount_cents ?? null}::bigint ELSE amount_changed_cents END,
      amount_changed_currency = CASE WHEN ${resolve}::boolean
        THEN ${change.resolution?.amountChanged?.currency ?? null}::text ELSE amount_changed_currency END,
      resolution_note = CASE WHEN ${resolve}::boolean THEN ${change.resolution?.note ?? null}::text ELSE resolution_note END
    WHERE org_id = ${orgId} AND id = ${id}`);
}

export async function insertLinks(
  tx: Transaction,
  orgId: string,
  inquiryId: string,
  links: readonly InquiryLinkRecord[],
): Promise<void> {
  for (const [position, link] of links.entries()) {
    await tx.query(sql`
      INSERT INTO inquiry_links (id, org_id, inquiry_id, kind, target_id, position)
      VALUES (${newId('inql')}, ${orgId}, ${inquiryId}, ${link.kind}, ${link.target_id}, ${position})`);
  }
}

export interface InquiryFilters {
  /** Only inquiries about these reps (a rep principal's visible users). */
  userIds?: readonly string[];
  userId?: string;
  states?: readonly InquiryState[];
  /** An admin's id, or null for the unassigned. */
  assigneeAdminId?: string | null;
  openedBefore?: Date;
}

/** A page of inquiries after `position`, oldest first (the queue) or newest first (a rep's own). */
export async function listPage(
  tx: Transaction,
  orgId: string,
  filters: InquiryFilters,
  position: KeysetPosition,
  limit: number,
  order: 'oldest_first' | 'newest_first',
): Promise<InquiryRecord[]> {
  const { values, param } = statementParameters(orgId);
  const where = ['i.org_id = $1'];
  if (filters.userIds !== undefined) where.push(`i.user_id = ANY(${param(filters.userIds)}::text[])`);
  if (filters.userId !== undefined) where.push(`i.user_id = ${param(filters.userId)}`);
  if (filters.states !== undefined) where.push(`i.state = ANY(${param(filters.states)}::text[])`);
  if (filters.assigneeAdminId === null) where.push('i.assignee_admin_id IS NULL');
  else if (filters.assigneeAdminId !== undefined) where.push(`i.assignee_admin_id = ${param(filters.assigneeAdminId)}`);
  if (filters.openedBefore !== undefined) where.push(`i.created_at < ${param(filters.openedBefore)}::timestamptz`);
  const comparison = order === 'oldest_first' ? '>' : '<';
  const direction = order === 'oldest_first' ? 'ASC' : 'DESC';
  if (position) {
    where.push(`(i.created_at, i.id) ${comparison} (${param(position.at)}::timestamptz, ${param(position.id)})`);
  }
  const rows = await tx.query<InquiryRow>({
    text: `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where.join(' AND ')}
           ORDER BY i.created_at ${direction}, i.id ${direction} LIMIT ${param(limit)}`,
    values,
  });
  return rows.map(toRecord);
}
