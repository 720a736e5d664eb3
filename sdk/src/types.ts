import type { Client, ClientPathsWithMethod, MethodResponse } from 'openapi-fetch';
import type { components, paths, webhooks } from './generated/openapi.ts';

// Every type here is derived from the generated contract; none is written by hand. They exist so that
// callers can name what the client methods take and return (`import type { Deal } from '@quotient/sdk'`).

/** The typed openapi-fetch client over every path of the contract. */
export type RawClient = Client<paths>;

type JsonBody<Path extends ClientPathsWithMethod<RawClient, Method>, Method extends 'get' | 'post'> = MethodResponse<
  RawClient,
  Method,
  Path
>;
type Query<Operation> = Operation extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type RequestBody<Operation> = Operation extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : never;

export type AuthContext = JsonBody<'/v1/', 'get'>;

export type DealList = JsonBody<'/v1/deals', 'get'>;
export type Deal = DealList['deals'][number];
/** One credited rep's share of a split deal (`splits` of a deal event and of a deal). */
export type DealSplit = NonNullable<Deal['splits']>[number];
export type ListDealsParams = Query<paths['/v1/deals']['get']>;
export type DealEvent = RequestBody<paths['/v1/deals/events']['post']>;
export type DealEventResult = JsonBody<'/v1/deals/events', 'post'>;
export type DealEventBatchResult = JsonBody<'/v1/deals/events/batch', 'post'>;
/** What became of one event of a batch: `status` 201/200 with its ids, or 400/422 with its `error`. */
export type DealEventBatchItemResult = DealEventBatchResult['results'][number];

export type EarningList = JsonBody<'/v1/earnings', 'get'>;
export type EarningListItem = EarningList['earnings'][number];
export type ListEarningsParams = Query<paths['/v1/earnings']['get']>;
export type Earning = JsonBody<'/v1/earnings/{id}', 'get'>;

export type UserList = JsonBody<'/v1/users', 'get'>;
export type User = UserList['users'][number];
export type ListUsersParams = Query<paths['/v1/users']['get']>;

export type Statement =
  paths['/v1/users/{id}/statements/{period_id}']['get']['responses'][200]['content']['application/json'];
export type StatementApproval = JsonBody<'/v1/users/{id}/statements/{period_id}/approvals', 'get'>;
export type StatementApprovalResult = JsonBody<'/v1/users/{id}/statements/{period_id}/approvals', 'post'>;

export type PayoutList = JsonBody<'/v1/payouts', 'get'>;
export type Payout = PayoutList['payouts'][number];
export type ListPayoutsParams = Query<paths['/v1/payouts']['get']>;
export type AdjustmentList = JsonBody<'/v1/adjustments', 'get'>;
export type Adjustment = AdjustmentList['adjustments'][number];
export type ListAdjustmentsParams = NonNullable<Query<paths['/v1/adjustments']['get']>>;
export type PaymentList = JsonBody<'/v1/payments', 'get'>;
export type Payment = PaymentList['payments'][number];
export type ListPaymentsParams = NonNullable<Query<paths['/v1/payments']['get']>>;
export type RecordPaymentRequest = NonNullable<
  paths['/v1/payments']['post']['requestBody']
>['content']['application/json'];

export type EstimateRequest = RequestBody<paths['/v1/estimates']['post']>;
export type Estimate = JsonBody<'/v1/estimates', 'post'>;
export type RepTokenRequest = RequestBody<paths['/v1/rep-tokens']['post']>;
export type RepTokenCreated = components['schemas']['RepTokenCreated'];
export type RepToken = components['schemas']['RepToken'];

export type PlanList = JsonBody<'/v1/plans', 'get'>;
export type PlanListItem = PlanList['plans'][number];
export type Plan = JsonBody<'/v1/plans/{id}', 'get'>;
export type GetPlanParams = Query<paths['/v1/plans/{id}']['get']>;
export type PlanDocument = paths['/v1/plans/{id}/document']['get']['responses'][200]['content']['application/json'];
/** Which version's document (the current one when absent); the SDK's methods choose the format. */
export type GetPlanDocumentParams = Omit<Query<paths['/v1/plans/{id}/document']['get']>, 'format'>;

export type InquiryList = JsonBody<'/v1/inquiries', 'get'>;
export type Inquiry = JsonBody<'/v1/inquiries/{id}', 'get'>;
export type InquiryComment = NonNullable<Inquiry['comments']>[number];
export type ListInquiriesParams = Query<paths['/v1/inquiries']['get']>;
export type OpenInquiryRequest = RequestBody<paths['/v1/inquiries']['post']>;
export type PlanAcceptance = JsonBody<'/v1/plan-acceptances/{id}', 'get'>;
export type PlanAcceptanceList = JsonBody<'/v1/plan-acceptances', 'get'>;
export type ListPlanAcceptancesParams = Query<paths['/v1/plan-acceptances']['get']>;
export type AcceptPlanRequest = RequestBody<paths['/v1/plans/{id}/acceptances']['post']>;
export type AcceptPlanResult = JsonBody<'/v1/plans/{id}/acceptances', 'post'>;

export type OpenApiDocument = JsonBody<'/v1/openapi.json', 'get'>;

/** The body of every error response (`{ error, reason?, retry_after_seconds? }`). */
export type ErrorBody = paths['/v1/']['get']['responses'][401]['content']['application/json'];
/** Every code the API's errors carry, from the contract's `Error.error` enum: switch on it exhaustively. */
export type ErrorCode = ErrorBody['error'];

/** Every webhook payload Quotient sends, discriminated by `type`. */
export type WebhookEvent = {
  [Kind in keyof webhooks]: RequestBody<webhooks[Kind]['post']>;
}[keyof webhooks];
