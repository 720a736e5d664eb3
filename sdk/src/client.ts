import createOpenApiClient from 'openapi-fetch';
import type { paths } from './generated/openapi.ts';
import { dedupKeyMiddleware } from './idempotency.ts';
import {
  AcceptancesResource,
  AdjustmentsResource,
  AuthResource,
  type Core,
  DealsResource,
  EarningsResource,
  EstimatesResource,
  InquiriesResource,
  MetaResource,
  PaymentsResource,
  PayoutsResource,
  PlansResource,
  RepTokensResource,
  type RequestOptions,
  StatementsResource,
  UsersResource,
} from './resources.ts';
import { MAX_RETRIES_LIMIT, type RetryPolicy } from './retry.ts';
import { type FetchFunction, retryingFetch, type TransportSettings } from './transport.ts';
import type { RawClient } from './types.ts';
import { VERSION } from './version.ts';

export interface ClientOptions {
  /** The server's origin, for example `https://api.quotient.example` (the paths start with `/v1`). */
  baseUrl: string;
  /** An API key, `qtn_...`, sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /**
   * Retries after the first attempt, 0 to 4 (so 1 to 5 attempts in all, as the API's client guidance
   * allows). Default 2: three attempts.
   */
  maxRetries?: number;
  /**
   * Limit for each attempt, in milliseconds, from sending the request to receiving
   * the whole response. Default 30,000.
   */
  timeoutMs?: number;
  /**
   * The longest `Retry-After` (seconds) the client waits for before retrying a 429 or 503. A longer one
   * is not waited for: the call fails at once with a QuotientError carrying `retryAfterSeconds`.
   * Default 60, the length of a rate window.
   */
  maxRetryAfterSeconds?: number;
  /** Exponential backoff with full jitter for 5xx and connection failures. Defaults 500 ms and 8,000 ms. */
  backoff?: { initialDelayMs?: number; maxDelayMs?: number };
  /** The fetch to send with; default `globalThis.fetch`. */
  fetch?: FetchFunction;
  /** Your application, for example `acme-crm-sync/2.3`; sent ahead of the SDK's own User-Agent. */
  userAgent?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/** The rate-limit headers of the last response that had them. */
export interface RateLimit {
  /** Requests allowed per window for this key. */
  limit: number;
  /** Requests left in the current window. */
  remaining: number;
  /** When the current window ends and `remaining` starts again from `limit`. */
  resetAt: Date;
}

const DEFAULTS = {
  maxRetries: 2,
  timeoutMs: 30_000,
  maxRetryAfterSeconds: 60,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
};

/** A client of the Quotient API. Create it with `createClient`; it holds no connection and needs no closing. */
export class QuotientClient {
  /** `GET /v1/`. */
  readonly auth: AuthResource;
  /** `GET /v1/deals`, `POST /v1/deals/events`. */
  readonly deals: DealsResource;
  /** `GET /v1/earnings`, `GET /v1/earnings/{id}`. */
  readonly earnings: EarningsResource;
  /** `GET /v1/plans`, `GET /v1/plans/{id}`. */
  readonly plans: PlansResource;
  /** `GET /v1/users`, `GET /v1/users/{id}`. */
  readonly users: UsersResource;
  /** `GET /v1/users/{id}/statements/{period_id}`. */
  readonly statements: StatementsResource;
  /** `GET /v1/payouts`. */
  readonly payouts: PayoutsResource;
  /** `GET /v1/adjustments`. */
  readonly adjustments: AdjustmentsResource;
  /** `POST|GET /v1/payments`, `GET|DELETE /v1/payments/{id}`. */
  readonly payments: PaymentsResource;
  /** `POST /v1/estimates`. */
  readonly estimates: EstimatesResource;
  /** `POST /v1/rep-tokens`, `POST /v1/rep-tokens/{id}/revoke`. */
  readonly repTokens: RepTokensResource;
  /** `GET|POST /v1/inquiries`, `GET /v1/inquiries/{id}`, its comments and withdrawal. */
  readonly inquiries: InquiriesResource;
  /** `GET /v1/plan-acceptances` (and one, and its document), `POST /v1/plans/{id}/acceptances` (rep tokens). */
  readonly acceptances: AcceptancesResource;
  /** `GET /v1/openapi.json`. */
  readonly meta: MetaResource;
  /**
   * The typed openapi-fetch client under the resources, with the same authentication, retries, timeouts
   * and `dedup_key` filling. It returns `{ data, error, response }` instead of throwing, for when you
   * need the whole response (status, headers such as `Idempotent-Replayed`).
   */
  readonly raw: RawClient;

  #rateLimit: RateLimit | undefined;
  readonly #transport: TransportSettings;

  constructor(options: ClientOptions) {
    const policy = retryPolicy(options);
    this.#transport = {
      ...policy,
      timeoutMs: checkTimeout(options.timeoutMs ?? DEFAULTS.timeoutMs),
      fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
      observe: (response) => {
        this.#rateLimit = readRateLimit(response.headers) ?? this.#rateLimit;
      },
    };
    this.raw = createOpenApiClient<paths>({
      baseUrl: checkBaseUrl(options.baseUrl),
      fetch: retryingFetch(this.#transport),
      headers: {
        ...options.headers,
        Authorization: `Bearer ${checkApiKey(options.apiKey)}`,
        'User-Agent': userAgent(options.userAgent),
      },
    });
    this.raw.use(dedupKeyMiddleware);
    const core: Core = { raw: this.raw, fetchFor: (callOptions) => this.#fetchFor(callOptions) };
    this.auth = new AuthResource(core);
    this.deals = new DealsResource(core);
    this.earnings = new EarningsResource(core);
    this.plans = new PlansResource(core);
    this.users = new UsersResource(core);
    this.statements = new StatementsResource(core);
    this.payouts = new PayoutsResource(core);
    this.adjustments = new AdjustmentsResource(core);
    this.payments = new PaymentsResource(core);
    this.estimates = new EstimatesResource(core);
    this.repTokens = new RepTokensResource(core);
    this.inquiries = new InquiriesResource(core);
    this.acceptances = new AcceptancesResource(core);
    this.meta = new MetaResource(core);
  }

  /**
   * `X-RateLimit-Limit`, `-Remaining` and `-Reset` of the last response that carried them (every
   * authenticated response does, errors included), or undefined before the first one.
   */
  get lastRateLimit(): RateLimit | undefined {
    return this.#rateLimit;
  }

  #fetchFor(options: RequestOptions | undefined): FetchFunction | undefined {
    if (options?.maxRetries === undefined && options?.timeoutMs === undefined) return undefined;
    return retryingFetch({
      ...this.#transport,
      maxRetries: checkMaxRetries(options.maxRetries ?? this.#transport.maxRetries),
      timeoutMs: checkTimeout(options.timeoutMs ?? this.#transport.timeoutMs),
    });
  }
}

/** A client of the Quotient API. */
export function createClient(options: ClientOptions): QuotientClient {
  return new QuotientClient(options);
}

function retryPolicy(options: ClientOptions): RetryPolicy {
  const policy = {
    maxRetries: checkMaxRetries(options.maxRetries ?? DEFAULTS.maxRetries),
    maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? DEFAULTS.maxRetryAfterSeconds,
    initialDelayMs: options.backoff?.initialDelayMs ?? DEFAULTS.initialDelayMs,
    maxDelayMs: options.backoff?.maxDelayMs ?? DEFAULTS.maxDelayMs,
  };
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number ≥ 0, got ${value}`);
  }
  return policy;
}

function checkMaxRetries(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_RETRIES_LIMIT) {
    throw new RangeError(`maxRetries must be a whole number from 0 to ${MAX_RETRIES_LIMIT}, got ${value}`);
  }
  return value;
}

function checkTimeout(value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`timeoutMs must be a number > 0, got ${value}`);
  return value;
}

function checkBaseUrl(value: string): string {
  if (typeof value !== 'string' || !URL.canParse(value)) {
    throw new TypeError(`baseUrl must be an absolute URL such as "https://api.quotient.example", got ${value}`);
  }
  return value;
}

function checkApiKey(value: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new TypeError('apiKey is required');
  return value;
}

function userAgent(application: string | undefined): string {
  const runtime = typeof process === 'object' && process.versions?.node ? ` node/${process.versions.node}` : '';
  const sdk = `quotient-sdk-node/${VERSION}${runtime}`;
  return application ? `${application} ${sdk}` : sdk;
}

function readRateLimit(headers: Headers): RateLimit | undefined {
  const limit = Number(headers.get('x-ratelimit-limit') ?? Number.NaN);
  const remaining = Number(headers.get('x-ratelimit-remaining') ?? Number.NaN);
  const reset = Number(headers.get('x-ratelimit-reset') ?? Number.NaN);
  if (![limit, remaining, reset].every(Number.isFinite)) return undefined;
  return { limit, remaining, resetAt: new Date(reset * 1000) };
}
