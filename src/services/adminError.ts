export type AdminErrorCode = 'invalid_argument' | 'not_found' | 'invalid_plan_file' | 'invalid_state';

/**
 * A refused admin command: a stable code for --json output and a sentence for people. `details` are further
 * members of the --json error document (e.g. `problems`); `lines` are what people read under the sentence.
 */
export class AdminError extends Error {
  readonly code: AdminErrorCode;
  readonly details: Record<string, unknown>;
  readonly lines: string[];

  constructor(
    code: AdminErrorCode,
    message: string,
    extra: { details?: Record<string, unknown>; lines?: string[] } = {},
  ) {
    super(message);
    this.name = 'AdminError';
    this.code = code;
    this.details = extra.details ?? {};
    this.lines = extra.lines ?? [];
  }
}
