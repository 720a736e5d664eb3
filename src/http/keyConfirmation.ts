import type { Response } from 'express';
import type { KeyConfirmingWrite, KeyFindings } from '../services/writeGuard.ts';
import type { RequestAudit } from './middleware/authenticate.ts';

/** What an accepted write of a marked operation answers (operations.ts requires the operation to declare it). */
const ACCEPTED = 201;

/**
 * A key taken from what this process knows (KeyGate.countKnownKey), not yet confirmed active for this request.
 * Before the request is answered it is confirmed: by what the request's write found (KeyConfirmation.settle), or
 * else by the error handler with one select. A key revoked on any instance is refused on the very next request
 * either way.
 */
export interface UnconfirmedKey {
  /** Reads the key: true when it is still active. */
  confirm(): Promise<boolean>;
  /** It was revoked: the request is answered like any other with that key (nothing audited, no rate headers). */
  refute(): void;
}

/**
 * "The write confirms the key", for an operation the contract marks `x-quotient-write-confirms-key`. Authentication
 * creates it (src/http/middleware/authenticate.ts) and keeps it on `res.locals`; the contract router hands the
 * operation's handler the write's data (`write()`: the audit entry an accepted write records in its transaction) and
 * takes back what the write found (KeyFindings), which it settles here once the write's transaction is over: a
 * revoked key answers 401, a recorded audit entry is not queued again. A key this process knows is therefore not
 * read again before the write. Every other way out of the request confirms the key in the error handler.
 */
export class KeyConfirmation {
  #unconfirmed: UnconfirmedKey | undefined;
  #settled = false;
  readonly #audit: RequestAudit;

  /** `unconfirmed`: the key was taken from what this process knows; absent, the lookup read it. */
  constructor(unconfirmed: UnconfirmedKey | undefined, audit: RequestAudit) {
    this.#unconfirmed = unconfirmed;
    this.#audit = audit;
  }

  /** What the write is handed: the request's audit entry as its acceptance records it. */
  write(): KeyConfirmingWrite {
    return { auditEntry: this.#audit.entryForWrite(ACCEPTED) };
  }

  /** What the write found, once its transaction is over. Settled once, for the one write it guards. */
  settle(findings: KeyFindings): void {
    if (this.#settled) throw new Error('a key confirmation is settled once, by the one write it guards');
    this.#settled = true;
    const unconfirmed = this.#unconfirmed;
    this.#unconfirmed = undefined;
    if (!findings.keyActive) unconfirmed?.refute();
    else if (findings.auditRecorded) this.#audit.recordedWithWrite();
  }

  /** The key is taken from what this process knows and nothing has read it for this request yet. */
  get awaitsConfirmation(): boolean {
    return this.#unconfirmed !== undefined;
  }

  /** For a request that fails before its write: the key still to confirm, handed out once. */
  takeUnconfirmed(): UnconfirmedKey | undefined {
    const unconfirmed = this.#unconfirmed;
    this.#unconfirmed = undefined;
    return unconfirmed;
  }
}

export function keyConfirmationOf(res: Response): KeyConfirmation | undefined {
  return res.locals.keyConfirmation as KeyConfirmation | undefined;
}
