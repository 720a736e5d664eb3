import type { components as PublicSchemas } from '../../generated/openapi.ts';
import type { components as AdminSchemas } from '../../generated/openapi-admin.ts';

/**
 * Every code a refusal can carry: the union of the `Error.error` enums of the public and the admin contract, so a
 * code is added to a contract before anything can throw it.
 */
export type RefusalCode = PublicSchemas['schemas']['Error']['error'] | AdminSchemas['schemas']['Error']['error'];

export interface RefusalOptions {
  /** Further members of the error document (a refused plan file's `problems`). */
  details?: Record<string, unknown>;
  /** Whole seconds the caller should wait, sent as `retry_after_seconds`. */
  retryAfterSeconds?: number;
  /** Headers the answer needs (`Allow` of a 405, `Retry-After`). */
  headers?: Record<string, string>;
  /** Lines for people under the reason (the CLI prints them; the API does not send them). */
  lines?: string[];
}

/**
 * A request refused, by the domain, a service or the HTTP layer alike: a stable code to switch on and a reason
 * for people. The HTTP error handler and the CLI each turn it into their error document in one place.
 */
export class Refusal extends Error {
  readonly code: RefusalCode;
  readonly reason: string;
  readonly details: Record<string, unknown>;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string>;
  readonly lines: string[];

  constructor(code: RefusalCode, reason: string, options: RefusalOptions = {}) {
    super(reason);
    this.name = 'Refusal';
    this.code = code;
    this.reason = reason;
    this.details = options.details ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers ?? {};
    this.lines = options.lines ?? [];
  }
}
