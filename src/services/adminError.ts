/** A refused admin command: a stable code for --json output and a sentence for people. */
export class AdminError extends Error {
  readonly code: 'invalid_argument' | 'not_found';

  constructor(code: 'invalid_argument' | 'not_found', message: string) {
    super(message);
    this.name = 'AdminError';
    this.code = code;
  }
}
