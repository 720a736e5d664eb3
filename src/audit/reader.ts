import { keysetCursor, keysetFingerprint } from '../domain/lists/keysetCursor.ts';
import { Refusal } from '../domain/refusal.ts';
import type { AuditEntryRecord, AuditFilters } from '../repositories/audit.ts';
import * as audit from '../repositories/audit.ts';
import * as orgs from '../repositories/orgs.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';

export interface AuditPage {
  entries: AuditEntryRecord[];
  nextCursor: string | null;
}

export const AUDIT_CURSOR = keysetCursor({ idPrefix: 'aud', timeMember: 'o' });

/** What an audit log cursor is bound to: the org and every filter. */
export function auditLogFingerprint(orgId: string, filters: AuditFilters): string {
  return keysetFingerprint(orgId, {
    actor: filters.actor ?? null,
    key_id: filters.keyId ?? null,
    action: filters.action ?? null,
    from: filters.from?.toISOString() ?? null,
    to: filters.to?.toISOString() ?? null,
  });
}

/** Reading an org's audit log: keyset pages for the admin API, the latest entries for `quotient audit`; newest first. */
export class AuditLogReader {
  readonly #statements: Transaction;

  constructor(db: Transactor) {
    this.#statements = db.statements;
  }

  /** The org's latest `limit` entries (at or after `since`); an unknown org is `not_found`. */
  async latest(orgId: string, options: { limit: number; since?: Date }): Promise<AuditEntryRecord[]> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
    return audit.listForOrg(this.#statements, orgId, options);
  }

  /** Refuses (`invalid_body`) a cursor that is malformed or was issued for other filters or another org. */
  async listPage(orgId: string, query: { filters: AuditFilters; limit: number; cursor?: string }): Promise<AuditPage> {
    const fingerprint = auditLogFingerprint(orgId, query.filters);
    const from = query.cursor === undefined ? null : AUDIT_CURSOR.decode(query.cursor, fingerprint);
    const rows = await audit.listPage(this.#statements, orgId, query.filters, from, query.limit + 1);
    const page = AUDIT_CURSOR.page(rows, query.limit, fingerprint, (entry) => ({
      at: entry.occurred_at,
      id: entry.id,
    }));
    return { entries: page.items, nextCursor: page.nextCursor };
  }
}
