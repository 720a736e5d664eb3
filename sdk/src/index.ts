export { type ClientOptions, createClient, QuotientClient, type RateLimit } from './client.ts';
export { QuotientConnectionError, QuotientError, QuotientTimeoutError } from './errors.ts';
export type { components, operations, paths, webhooks } from './generated/openapi.ts';
export { PageIterator, type PageSource } from './pagination.ts';
export type {
  AdjustmentsResource,
  AuthResource,
  DealsResource,
  EarningsResource,
  EstimatesResource,
  MetaResource,
  PayoutsResource,
  PlansResource,
  RequestOptions,
  StatementsResource,
  UsersResource,
} from './resources.ts';
export type { FetchFunction } from './transport.ts';
export type {
  Adjustment,
  AdjustmentList,
  AuthContext,
  Deal,
  DealEvent,
  DealEventBatchItemResult,
  DealEventBatchResult,
  DealEventResult,
  DealList,
  DealSplit,
  Earning,
  EarningList,
  EarningListItem,
  ErrorBody,
  ErrorCode,
  Estimate,
  EstimateRequest,
  GetPlanParams,
  ListAdjustmentsParams,
  ListDealsParams,
  ListEarningsParams,
  ListPayoutsParams,
  ListUsersParams,
  OpenApiDocument,
  Payout,
  PayoutList,
  Plan,
  PlanList,
  PlanListItem,
  RawClient,
  Statement,
  StatementApproval,
  StatementApprovalResult,
  User,
  UserList,
  WebhookEvent,
} from './types.ts';
export { VERSION } from './version.ts';
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationFailure,
} from './webhooks.ts';
