import type { AuditEntryInput } from '../repositories/audit.ts';

// "The write confirms the key" (the contract's `x-quotient-write-confirms-key`), as data that crosses the layers.
// The HTTP layer hands the write the request's audit entry (`KeyConfirmingWrite`); the write's first statement reads
// the key inside the write's transaction (a revoked key writes nothing), and the accepted write records the entry in
// that transaction. What the write found comes back with its result (`KeyFindings`), and the HTTP layer acts on it
// once the transaction is over (src/http/keyConfirmation.ts): nothing here calls back into HTTP.

/** What the HTTP layer hands a write that confirms the request's key. */
export interface KeyConfirmingWrite {
  /** The request's audit entry as the accepted write records it (status 201). */
  readonly auditEntry: AuditEntryInput;
}

/** What such a write found, returned with its result. */
export interface KeyFindings {
  /** The write's first statement found the key active; false: revoked, and the write wrote nothing. */
  keyActive: boolean;
  /** The write recorded the request's audit entry in its transaction (an accepted write does). */
  auditRecorded: boolean;
}

/**
 * A request's audit entry as the events of one request carry it: the first accepted event records it, the others
 * nothing (a batch's events share one).
 */
export interface AuditRide {
  /** The entry for the accepted event that takes it first; null once taken. */
  take(): AuditEntryInput | null;
}

export function auditRide(entry: AuditEntryInput): AuditRide {
  let taken = false;
  return {
    take: () => {
      if (taken) return null;
      taken = true;
      return entry;
    },
  };
}
