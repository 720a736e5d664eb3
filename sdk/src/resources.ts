import { QuotientError } from './errors.ts';
import { PageIterator } from './pagination.ts';
import type { FetchFunction } from './transport.ts';
import type {
  AcceptPlanRequest,
  AcceptPlanResult,
  Adjustment,
  AdjustmentList,
  AuthContext,
  Deal,
  DealEvent,
  DealEventBatchResult,
  DealEventResult,
  DealList,
  Earning,
  EarningList,
  EarningListItem,
  Estimate,
  EstimateRequest,
  GetPlanDocumentParams,
  GetPlanParams,
  Inquiry,
  InquiryList,
  ListAdjustmentsParams,
  ListDealsParams,
  ListEarningsParams,
  ListInquiriesParams,
  ListPaymentsParams,
  ListPayoutsParams,
  ListPlanAcceptancesParams,
  ListUsersParams,
  OpenApiDocument,
  OpenInquiryRequest,
  Payment,
  PaymentList,
  Payout,
  PayoutList,
  Plan,
  PlanAcceptance,
  PlanAcceptanceList,
  PlanDocument,
  PlanList,
  PlanListItem,
  RawClient,
  RecordPaymentRequest,
  RepToken,
  RepTokenCreated,
  RepTokenRequest,
  Statement,
  StatementApproval,
  StatementApprovalResult,
  User,
  UserList,
} from './types.ts';

/** Options of one call; they override the client's for that call only. */
export interface RequestOptions {
  /** Cancels the call: the attempt in flight and any wait before a retry. */
  signal?: AbortSignal;
  /** Retries after the first attempt, 0 to 4. */
  maxRetries?: number;
  /** Limit for each attempt, in milliseconds. */
  timeoutMs?: number;
  /** Extra request headers, such as your own `X-Request-Id` (up to 128 plain characters) to trace the call. */
  headers?: Record<string, string>;
}

/** What the resources need from the client: the raw client and the per-call transport. */
export interface Core {
  readonly raw: RawClient;
  fetchFor(options: RequestOptions | undefined): FetchFunction | undefined;
}

function init(core: Core, options: RequestOptions | undefined) {
  return { signal: options?.signal, headers: options?.headers, fetch: core.fetchFor(options) };
}

/** The body of a successful response, or the API's error as a QuotientError. */
async function unwrap<Data>(pending: Promise<{ data?: Data; error?: unknown; response: Response }>): Promise<Data> {
  const { data, error, response } = await pending;
  if (!response.ok) throw new QuotientError(response.status, error, response.headers);
  return data as Data;
}

export class AuthResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /** `GET /v1/`: the org and key this client authenticates as. Needs no scope. */
  async get(options?: RequestOptions): Promise<AuthContext> {
    return unwrap(this.#core.raw.GET('/v1/', init(this.#core, options)));
  }
}

export class DealsResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /**
   * `GET /v1/deals`, every page: `for await (const deal of client.deals.list({ status: 'won' }))`.
   * `limit` is the page size; `cursor`, when given, is where the iteration starts.
   */
  list(params: ListDealsParams = {}, options?: RequestOptions): PageIterator<Deal, DealList> {
    return new PageIterator({
      fetchPage: (cursor) => this.listPage({ ...params, cursor }, options),
      items: (page) => page.deals,
      nextCursor: (page) => page.next_cursor,
      firstCursor: params.cursor,
    });
  }

  /** `GET /v1/deals`, one page; pass its `next_cursor` as `cursor` for the next. Needs `deals:read`. */
  async listPage(params: ListDealsParams = {}, options?: RequestOptions): Promise<DealList> {
    return unwrap(this.#core.raw.GET('/v1/deals', { params: { query: params }, ...init(this.#core, options) }));
  }

  /**
   * `POST /v1/deals/events`: ingests one deal event. Needs `deals:write`. Safe to retry: without a
   * `dedup_key` the SDK sends one of its own, the same on every retry of this call, so a retry after a
   * lost response is answered with the original ids instead of recording the event twice. Give your
   * own stable `dedup_key` (your event id) to make retries across calls and processes safe too.
   */
  async ingestEvent(event: DealEvent, options?: RequestOptions): Promise<DealEventResult> {
    return unwrap(this.#core.raw.POST('/v1/deals/events', { body: event, ...init(this.#core, options) }));
  }

  /**
   * `POST /v1/deals/events/batch`: ingests up to 1,000 deal events, answered with one result per event, in order
   * (`status` 201 or 200 with the ids, 400 or 422 with the event's `error`): check each. Needs `deals:write`.
   * Safe to retry as `ingestEvent` is: an event without a `dedup_key` gets one of the SDK's, the same on every
   * retry of this call, so a retried batch replays what was applied and applies the rest.
   */
  async ingestEvents(events: DealEvent[], options?: RequestOptions): Promise<DealEventBatchResult> {
    return unwrap(this.#core.raw.POST('/v1/deals/events/batch', { body: { events }, ...init(this.#core, options) }));
  }
}

export class EarningsResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /** `GET /v1/earnings`, every page. `limit` is the page size. Needs `earnings:read`. */
  list(params: ListEarningsParams = {}, options?: RequestOptions): PageIterator<EarningListItem, EarningList> {
    return new PageIterator({
      fetchPage: (cursor) => this.listPage({ ...params, cursor }, options),
      items: (page) => page.earnings,
      nextCursor: (page) => page.next_cursor,
      firstCursor: params.cursor,
    });
  }

  /** `GET /v1/earnings`, one page. */
  async listPage(params: ListEarningsParams = {}, options?: RequestOptions): Promise<EarningList> {
    return unwrap(this.#core.raw.GET('/v1/earnings', { params: { query: params }, ...init(this.#core, options) }));
  }

  /** `GET /v1/earnings/{id}`: one earning with the trace of its computation. */
  async get(id: string, options?: RequestOptions): Promise<Earning> {
    return unwrap(this.#core.raw.GET('/v1/earnings/{id}', { params: { path: { id } }, ...init(this.#core, options) }));
  }
}

export class UsersResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /**
   * `GET /v1/users`, every page: the org's reps. `for await (const user of client.users.list({ external_id: 'rep-017' }))`
   * finds a rep by the id in your system. `limit` is the page size. Needs `earnings:read`.
   */
  list(params: ListUsersParams = {}, options?: RequestOptions): PageIterator<User, UserList> {
    return new PageIterator({
      fetchPage: (cursor) => this.listPage({ ...params, cursor }, options),
      items: (page) => page.users,
      nextCursor: (page) => page.next_cursor,
      firstCursor: params.cursor,
    });
  }

  /** `GET /v1/users`, one page. */
  async listPage(params: ListUsersParams = {}, options?: RequestOptions): Promise<UserList> {
    return unwrap(this.#core.raw.GET('/v1/users', { params: { query: params }, ...init(this.#core, options) }));
  }

  /**
   * The rep with this external id (the deals' `owner_external_id`), or null when Quotient has not seen them.
   */
  async findByExternalId(externalId: string, options?: RequestOptions): Promise<User | null> {
    const page = await this.listPage({ external_id: externalId, limit: 1 }, options);
    return page.users[0] ?? null;
  }

  /** `GET /v1/users/{id}`: one rep. */
  async get(id: string, options?: RequestOptions): Promise<User> {
    return unwrap(this.#core.raw.GET('/v1/users/{id}', { params: { path: { id } }, ...init(this.#core, options) }));
  }
}

export class StatementsResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /**
   * `GET /v1/users/{id}/statements/{period_id}`: the rep's statement for the period (attainment, every row
   * with an explanation, clawbacks and top-ups, totals by status, the amount payable). Needs `earnings:read`.
   */
  async get(userId: string, periodId: string, options?: RequestOptions): Promise<Statement> {
    // Without `format` (and with openapi-fetch's JSON Accept) the answer is the JSON statement.
    return unwrap<Statement | string>(
      this.#core.raw.GET('/v1/users/{id}/statements/{period_id}', {
        params: { path: { id: userId, period_id: periodId } },
        ...init(this.#core, options),
      }),
    ) as Promise<Statement>;
  }

  /**
   * `GET /v1/users/{id}/statements/{period_id}?format=csv`: the same statement as a CSV file for spreadsheets, one
   * row per line and adjustment. Needs `earnings:read`.
   */
  async csv(userId: string, periodId: string, options?: RequestOptions): Promise<string> {
    return unwrap<Statement | string>(
      this.#core.raw.GET('/v1/users/{id}/statements/{period_id}', {
        params: { path: { id: userId, period_id: periodId }, query: { format: 'csv' } },
        parseAs: 'text',
        ...init(this.#core, options),
      }),
    ) as Promise<string>;
  }

  /**
   * `GET /v1/users/{id}/statements/{period_id}?format=pdf`: the same statement as a printable PDF document (its
   * bytes). Needs `earnings:read`.
   */
  async pdf(userId: string, periodId: string, options?: RequestOptions): Promise<Uint8Array> {
    const bytes = await unwrap<unknown>(
      this.#core.raw.GET('/v1/users/{id}/statements/{period_id}', {
        params: { path: { id: userId, period_id: periodId }, query: { format: 'pdf' } },
        parseAs: 'arrayBuffer',
        ...init(this.#core, options),
      }),
    );
    return new Uint8Array(bytes as ArrayBuffer);
  }

  /**
   * `GET /v1/users/{id}/statements/{period_id}/approvals`: where the statement's approval stands under the org's
   * policy, each step with what it approved and, after a change, the difference. Needs `earnings:read`.
   */
  async approval(userId: string, periodId: string, options?: RequestOptions): Promise<StatementApproval> {
    return unwrap(
      this.#core.raw.GET('/v1/users/{id}/statements/{period_id}/approvals', {
        params: { path: { id: userId, period_id: periodId } },
        ...init(this.#core, options),
      }),
    );
  }

  /**
   * `POST /v1/users/{id}/statements/{period_id}/approvals`: the rep (or a manager above them) approves the
   * statement as it is now. A rep action: call it with a client made with a rep token; an API key is refused (403).
   */
  async approve(userId: string, periodId: string, options?: RequestOptions): Promise<StatementApprovalResult> {
    return unwrap(
      this.#core.raw.POST('/v1/users/{id}/statements/{period_id}/approvals', {
        params: { path: { id: userId, period_id: periodId } },
        ...init(this.#core, options),
      }),
    );
  }
}

export class PayoutsResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /**
   * `GET /v1/payouts?period_id=`, every page: one payout per rep of a locked period,
   * `for await (const payout of client.payouts.list({ period_id: '2026-04' }))`. Needs `earnings:read`.
   */
  list(params: ListPayoutsParams, options?: RequestOptions): PageIterator<Payout, PayoutList> {
    return new PageIterator({
      fetchPage: (cursor) => this.listPage({ ...params, cursor }, options),
      items: (page) => page.payouts,
      nextCursor: (page) => page.next_cursor,
      firstCursor: params.cursor,
    });
  }

  /** `GET /v1/payouts`, one page; an open period is a QuotientError with status 409 (`period_open`). */
  async listPage(params: ListPayoutsParams, options?: RequestOptions): Promise<PayoutList> {
    return unwrap(this.#core.raw.GET('/v1/payouts', { params: { query: params }, ...init(this.#core, options) }));
  }
}

export class AdjustmentsResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /**
   * `GET /v1/adjustments`, every page: the org's manual adjustments (one-off bonuses, corrections, guarantees,
   * deductions and their voids), oldest first,
   * `for await (const adjustment of client.adjustments.list({ period_id: '2026-04' }))`. Needs `earnings:read`.
   */
  list(params: ListAdjustmentsParams = {}, options?: RequestOptions): PageIterator<Adjustment, AdjustmentList> {
    return new PageIterator({
      fetchPage: (cursor) => this.listPage({ ...params, cursor }, options),
      items: (page) => page.adjustments,
      nextCursor: (page) => page.next_cursor,
      firstCursor: params.cursor,
    });
  }

  /** `GET /v1/adjustments`, one page. */
  async listPage(params: ListAdjustmentsParams = {}, options?: RequestOptions): Promise<AdjustmentList> {
    return unwrap(this.#core.raw.GET('/v1/adjustments', { params: { query: params }, ...init(this.#core, options) }));
  }
}

export class PaymentsResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /**
   * `POST /v1/payments`: records a payment of the customer's against a deal (named by the deal's `external_id`);
   * what it releases of the commission chips paid on cash hold is booked in the period of `received_on`. Safe to
   * retry: the payment is idempotent on its own `external_id` (the same body again is answered with the payment as
   * recorded). Needs `deals:write`.
   */
  async record(payment: RecordPaymentRequest, options?: RequestOptions): Promise<Payment> {
    return unwrap(this.#core.raw.POST('/v1/payments', { body: payment, ...init(this.#core, options) }));
  }

  /** `GET /v1/payments`, every page, oldest first: `for await (const p of client.payments.list({ deal_external_id }))`. */
  list(params: ListPaymentsParams = {}, options?: RequestOptions): PageIterator<Payment, PaymentList> {
    return new PageIterator({
      fetchPage: (cursor) => this.listPage({ ...params, cursor }, options),
      items: (page) => page.payments,
      nextCursor: (page) => page.next_cursor,
      firstCursor: params.cursor,
    });
  }

  /** `GET /v1/payments`, one page. Needs `deals:read`. */
  async listPage(params: ListPaymentsParams = {}, options?: RequestOptions): Promise<PaymentList> {
    return unwrap(this.#core.raw.GET('/v1/payments', { params: { query: params }, ...init(this.#core, options) }));
  }

  /** `GET /v1/payments/{id}`. Needs `deals:read`. */
  async get(id: string, options?: RequestOptions): Promise<Payment> {
    return unwrap(this.#core.raw.GET('/v1/payments/{id}', { params: { path: { id } }, ...init(this.#core, options) }));
  }

  /**
   * `DELETE /v1/payments/{id}`: voids the payment (refunded, or recorded in error); what it released is taken back.
   * Voiding a voided payment changes nothing. Needs `deals:write`.
   */
  async void(id: string, options?: RequestOptions): Promise<Payment> {
    return unwrap(
      this.#core.raw.DELETE('/v1/payments/{id}', { params: { path: { id } }, ...init(this.#core, options) }),
    );
  }
}

export class EstimatesResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /**
   * `POST /v1/estimates`: what each line would pay if the deal (existing, by `deal_id` or `external_id`, or
   * hypothetical) closed won on `close_date`. Writes nothing, so it is safe to retry. Needs `earnings:read`.
   */
  async create(request: EstimateRequest, options?: RequestOptions): Promise<Estimate> {
    return unwrap(this.#core.raw.POST('/v1/estimates', { body: request, ...init(this.#core, options) }));
  }
}

export class RepTokensResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /**
   * `POST /v1/rep-tokens`: a short-lived token bound to one rep (`user_id` or `user_external_id`), for the rep's
   * browser to call `/v1` as that rep; `ttl_seconds` 60 to 3600, default 900. The secret (`token`) is in this
   * answer only: hand it to the rep's browser, never log it. Needs `rep_tokens:write`. A retried call may mint a
   * second token; unused tokens expire on their own.
   */
  async create(request: RepTokenRequest, options?: RequestOptions): Promise<RepTokenCreated> {
    return unwrap(this.#core.raw.POST('/v1/rep-tokens', { body: request, ...init(this.#core, options) }));
  }

  /** `POST /v1/rep-tokens/{id}/revoke`: its next call is 401. Idempotent. Needs `rep_tokens:write`. */
  async revoke(id: string, options?: RequestOptions): Promise<RepToken> {
    return unwrap(
      this.#core.raw.POST('/v1/rep-tokens/{id}/revoke', { params: { path: { id } }, ...init(this.#core, options) }),
    );
  }
}

export class InquiriesResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /**
   * `GET /v1/inquiries`, every page, newest first: the org's inquiries with an API key (`earnings:read`), the rep's
   * and their reports' with a rep token. `for await (const inquiry of client.inquiries.list({ state: 'open' }))`.
   */
  list(params: ListInquiriesParams = {}, options?: RequestOptions): PageIterator<Inquiry, InquiryList> {
    return new PageIterator({
      fetchPage: (cursor) => this.listPage({ ...params, cursor }, options),
      items: (page) => page.inquiries,
      nextCursor: (page) => page.next_cursor,
      firstCursor: params.cursor,
    });
  }

  /** `GET /v1/inquiries`, one page. */
  async listPage(params: ListInquiriesParams = {}, options?: RequestOptions): Promise<InquiryList> {
    return unwrap(this.#core.raw.GET('/v1/inquiries', { params: { query: params }, ...init(this.#core, options) }));
  }

  /**
   * `POST /v1/inquiries`: opens an inquiry about an earning, a deal or a statement. Needs `inquiries:write` (a rep
   * token may always). Not idempotent: a retry after a network error may open a second one, so the client does
   * not retry it.
   */
  async open(request: OpenInquiryRequest, options?: RequestOptions): Promise<Inquiry> {
    return unwrap(
      this.#core.raw.POST('/v1/inquiries', { body: request, ...init(this.#core, { maxRetries: 0, ...options }) }),
    );
  }

  /** `GET /v1/inquiries/{id}`: one inquiry with its thread. */
  async get(id: string, options?: RequestOptions): Promise<Inquiry> {
    return unwrap(this.#core.raw.GET('/v1/inquiries/{id}', { params: { path: { id } }, ...init(this.#core, options) }));
  }

  /** `POST /v1/inquiries/{id}/comments`: adds a comment; answers the inquiry with its thread. Not retried. */
  async comment(id: string, body: string, options?: RequestOptions): Promise<Inquiry> {
    return unwrap(
      this.#core.raw.POST('/v1/inquiries/{id}/comments', {
        params: { path: { id } },
        body: { body },
        ...init(this.#core, { maxRetries: 0, ...options }),
      }),
    );
  }

  /** `POST /v1/inquiries/{id}/withdraw`: the rep's side takes it back; a closed one is 409 `invalid_state`. */
  async withdraw(id: string, options?: RequestOptions): Promise<Inquiry> {
    return unwrap(
      this.#core.raw.POST('/v1/inquiries/{id}/withdraw', {
        params: { path: { id } },
        ...init(this.#core, options),
      }),
    );
  }
}

export class PlansResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /** `GET /v1/plans`: every active plan (the API returns them in one page). Needs `plans:read`. */
  list(options?: RequestOptions): PageIterator<PlanListItem, PlanList> {
    return new PageIterator({
      fetchPage: () => this.listPage(options),
      items: (page) => page.plans,
      nextCursor: () => null,
    });
  }

  /** `GET /v1/plans`: the whole list as one page. */
  async listPage(options?: RequestOptions): Promise<PlanList> {
    return unwrap(this.#core.raw.GET('/v1/plans', init(this.#core, options)));
  }

  /** `GET /v1/plans/{id}`, active or archived; `{ include: 'chips' }` adds the current version's rule chips. */
  async get(id: string, params: GetPlanParams = {}, options?: RequestOptions): Promise<Plan> {
    return unwrap(
      this.#core.raw.GET('/v1/plans/{id}', { params: { path: { id }, query: params }, ...init(this.#core, options) }),
    );
  }

  /**
   * `GET /v1/plans/{id}/document`: the plan version's document as its model (the current version unless
   * `version_id` names another), with worked examples the engine computed; with `user_id`, that rep's own quota
   * per period (a rep token reads its own rep's). Needs `plans:read`.
   */
  async document(id: string, params: GetPlanDocumentParams = {}, options?: RequestOptions): Promise<PlanDocument> {
    const query = { ...params, format: 'json' as const };
    const body = await unwrap(
      this.#core.raw.GET('/v1/plans/{id}/document', { params: { path: { id }, query }, ...init(this.#core, options) }),
    );
    return body as PlanDocument;
  }

  /** `GET /v1/plans/{id}/document?format=pdf`: the same document as a PDF file's bytes. Needs `plans:read`. */
  async documentPdf(id: string, params: GetPlanDocumentParams = {}, options?: RequestOptions): Promise<Uint8Array> {
    const query = { ...params, format: 'pdf' as const };
    const body = await unwrap(
      this.#core.raw.GET('/v1/plans/{id}/document', {
        params: { path: { id }, query },
        parseAs: 'arrayBuffer',
        ...init(this.#core, options),
      }),
    );
    return new Uint8Array(body as ArrayBuffer);
  }
}

/** Reps accepting plan versions (docs/plan-acceptance.md). */
export class AcceptancesResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /**
   * `GET /v1/plan-acceptances`, every page, newest request first: the org's with an API key (`plans:read`), the rep's
   * and their reports' with a rep token. `for await (const asked of client.acceptances.list({ state: 'requested' }))`.
   */
  list(
    params: ListPlanAcceptancesParams = {},
    options?: RequestOptions,
  ): PageIterator<PlanAcceptance, PlanAcceptanceList> {
    return new PageIterator({
      fetchPage: (cursor) => this.listPage({ ...params, cursor }, options),
      items: (page) => page.plan_acceptances,
      nextCursor: (page) => page.next_cursor,
      firstCursor: params.cursor,
    });
  }

  /** `GET /v1/plan-acceptances`, one page. */
  async listPage(params: ListPlanAcceptancesParams = {}, options?: RequestOptions): Promise<PlanAcceptanceList> {
    return unwrap(
      this.#core.raw.GET('/v1/plan-acceptances', { params: { query: params }, ...init(this.#core, options) }),
    );
  }

  /** `GET /v1/plan-acceptances/{id}`. */
  async get(id: string, options?: RequestOptions): Promise<PlanAcceptance> {
    return unwrap(
      this.#core.raw.GET('/v1/plan-acceptances/{id}', { params: { path: { id } }, ...init(this.#core, options) }),
    );
  }

  /** `GET /v1/plan-acceptances/{id}/document`: the document kept with the acceptance, as its model. */
  async document(id: string, options?: RequestOptions): Promise<PlanDocument> {
    const body = await unwrap(
      this.#core.raw.GET('/v1/plan-acceptances/{id}/document', {
        params: { path: { id }, query: { format: 'json' } },
        ...init(this.#core, options),
      }),
    );
    return body as PlanDocument;
  }

  /** `GET /v1/plan-acceptances/{id}/document?format=pdf`: the kept document as a PDF file's bytes. */
  async documentPdf(id: string, options?: RequestOptions): Promise<Uint8Array> {
    const body = await unwrap(
      this.#core.raw.GET('/v1/plan-acceptances/{id}/document', {
        params: { path: { id }, query: { format: 'pdf' } },
        parseAs: 'arrayBuffer',
        ...init(this.#core, options),
      }),
    );
    return new Uint8Array(body as ArrayBuffer);
  }

  /**
   * `POST /v1/plans/{id}/acceptances`: the rep accepts the plan version asked of them by typing their name. With a
   * rep token only (an API key is 403 `rep_token_required`); a wrong name is 422 `typed_name_mismatch`. Idempotent.
   */
  async accept(planId: string, request: AcceptPlanRequest, options?: RequestOptions): Promise<AcceptPlanResult> {
    return unwrap(
      this.#core.raw.POST('/v1/plans/{id}/acceptances', {
        params: { path: { id: planId } },
        body: request,
        ...init(this.#core, options),
      }),
    );
  }
}

export class MetaResource {
  readonly #core: Core;
  constructor(core: Core) {
    this.#core = core;
  }

  /** `GET /v1/openapi.json`: the OpenAPI 3.1 contract this SDK was generated from, as the server has it. */
  async getOpenApiDocument(options?: RequestOptions): Promise<OpenApiDocument> {
    return unwrap(this.#core.raw.GET('/v1/openapi.json', init(this.#core, options)));
  }
}
