import type { AuditEntryInput } from '../repositories/audit.ts';

/**
 * What a write settles when its operation confirms the request's key (the contract's
 * `x-quotient-write-confirms-key`): the write's first statement reads the key, inside the write's transaction, and
 * the accepted write records the request's audit entry in that transaction. The HTTP layer hands the guard to the
 * operation and refuses a success answered before it was settled (src/http/keyConfirmation.ts).
 */
export interface WriteGuard {
  /**
   * What the write's first statement found: the key active, or revoked (and then the write wrote nothing). Called
   * once, by the write, inside its transaction.
   */
  settle(keyActive: boolean): void;
  /** The request's audit entry as the accepted write records it; null: another write of the request records it. */
  auditEntry(): AuditEntryInput | null;
}
