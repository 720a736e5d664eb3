import type { Response } from 'express';
import type { AuditEntryInput } from '../repositories/audit.ts';
import type { WriteGuard } from '../services/writeGuard.ts';

/** What an accepted write of a marked operation answers (operations.ts requires the operation to declare it). */
const ACCEPTED = 201;

/**
 * A key taken from what this process knows (KeyGate.countKnownKey), not yet confirmed active for this request.
 * Before the request is answered it is confirmed: by the request's write (KeyConfirmation.settle), or else by the
 * error handler with one select. A key revoked on any instance is refused on the very next request either way.
 */
export interface UnconfirmedKey {
  /** Reads the key: true when it is still active. */
  confirm(): Promise<boolean>;
  /** It was revoked: the request is answered like any other with that key (nothing audited, no rate headers). */
  refute(): void;
}

/**
 * "The write confirms the key", for an operation the contract marks `x-quotient-write-confirms-key`. Authentication
 * creates it (src/http/middleware/authenticate.ts) and hands it to the operation on `res.locals`; the operation's
 * write settles it inside its transaction: its first statement re-reads the key (a revoked key writes nothing and
 * the request answers 401) and the accepted write records the request's audit entry. A key this process knows is
 * therefore not read again before the write. The dispatcher lets a success out only once the confirmation is
 * settled (`refuseUnsettledSuccess`); every other way out of the request confirms the key in the error handler.
 */
export class KeyConfirmation implements WriteGuard {
  #unconfirmed: UnconfirmedKey | undefined;
  #found: 'active' | 'revoked' | undefined;
  readonly #entryForWrite: (status: number) => AuditEntryInput;

  /** `unconfirmed`: the key was taken from what this process knows; absent, the lookup read it. */
  constructor(unconfirmed: UnconfirmedKey | undefined, entryForWrite: (status: number) => AuditEntryInput) {
    this.#unconfirmed = unconfirmed;
    this.#entryForWrite = entryForWrite;
  }

  settle(keyActive: boolean): void {
    if (this.#found !== undefined) throw new Error('a key confirmation is settled once, by the one write it guards');
    this.#found = keyActive ? 'active' : 'revoked';
    const unconfirmed = this.#unconfirmed;
    this.#unconfirmed = undefined;
    if (!keyActive) unconfirmed?.refute();
  }

  auditEntry(): AuditEntryInput {
    return this.#entryForWrite(ACCEPTED);
  }

  /** The write found the key active. */
  get confirmed(): boolean {
    return this.#found === 'active';
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

/**
 * A marked operation's success goes out only when its write found the key active. The guard is settled only inside
 * the write's transaction, so a handler that answers a success without settling it wrote nothing under the guard:
 * its key was never re-read and its audit entry never recorded. Such an answer is refused before its headers are
 * sent: the headers the handler set are removed and the send fails with an error the error handler answers
 * (500 internal_error, after confirming the key, so a revoked key still answers 401). Answers of 400 and above pass:
 * they are refusals, which the error handler has already confirmed the key for.
 */
export function refuseUnsettledSuccess(res: Response, confirmation: KeyConfirmation, operationId: string): void {
  const writeHead = res.writeHead;
  const headersBefore = new Set(res.getHeaderNames());
  res.writeHead = function guardedWriteHead(this: Response, ...args: Parameters<Response['writeHead']>) {
    res.writeHead = writeHead;
    const status = typeof args[0] === 'number' ? args[0] : res.statusCode;
    if (status < 400 && !confirmation.confirmed) {
      for (const name of res.getHeaderNames()) if (!headersBefore.has(name)) res.removeHeader(name);
      throw new Error(`${operationId} answered ${status} before its write confirmed the request's key`);
    }
    return writeHead.apply(this, args);
  } as Response['writeHead'];
}
