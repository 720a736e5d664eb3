import type { operations, paths } from '../../../generated/openapi.ts';
import type { ContractHandlers } from '../handlers.ts';
import { type AdjustmentRouteDeps, adjustmentHandlers } from './adjustments.ts';
import { type ApprovalRouteDeps, approvalHandlers } from './approvals.ts';
import { type DealEventBatchRouteDeps, dealEventBatchHandlers } from './dealEventBatch.ts';
import { type DealRouteDeps, dealHandlers } from './deals.ts';
import { type EarningRouteDeps, earningHandlers } from './earnings.ts';
import { type EstimateRouteDeps, estimateHandlers } from './estimates.ts';
import { type EventRouteDeps, eventHandlers } from './events.ts';
import { type InquiryRouteDeps, inquiryHandlers } from './inquiries.ts';
import { metaHandlers } from './meta.ts';
import { type PaymentRouteDeps, paymentHandlers } from './payments.ts';
import { type PlanAcceptanceRouteDeps, planAcceptanceHandlers } from './planAcceptances.ts';
import { type PlanRouteDeps, planHandlers } from './plans.ts';
import { type PlatformHandlerDeps, platformHandlers } from './platform.ts';
import { type ReportRouteDeps, reportHandlers } from './reports.ts';
import { type RepTokenRouteDeps, repTokenHandlers } from './repTokens.ts';
import { type UserRouteDeps, userHandlers } from './users.ts';

/**
 * The operations openapi.yaml marks `x-quotient-write-confirms-key`: their handlers return what their write found
 * (KeyConfirmingHandler). test/integration/write-guard.test.ts checks the list against the contract's marks.
 */
export const KEY_CONFIRMING_OPERATIONS = ['ingestDealEvent'] as const;

/** The handlers of the public contract (openapi.yaml), one per operation. */
export type PublicHandlers = ContractHandlers<operations, paths, (typeof KEY_CONFIRMING_OPERATIONS)[number]>;

export type HandlerDeps = PlatformHandlerDeps &
  DealRouteDeps &
  DealEventBatchRouteDeps &
  EarningRouteDeps &
  PlanRouteDeps &
  UserRouteDeps &
  ReportRouteDeps &
  AdjustmentRouteDeps &
  ApprovalRouteDeps &
  EstimateRouteDeps &
  EventRouteDeps &
  RepTokenRouteDeps &
  InquiryRouteDeps &
  PlanAcceptanceRouteDeps &
  PaymentRouteDeps;

/**
 * Every operation of the contract, bound to its handler by operationId: leaving one out is a type error. Each
 * handler is thin: read the validated request, call a service, map the result.
 */
export function contractHandlers(deps: HandlerDeps): PublicHandlers {
  return {
    ...platformHandlers(deps),
    ...metaHandlers(),
    ...dealHandlers(deps),
    ...dealEventBatchHandlers(deps),
    ...earningHandlers(deps),
    ...planHandlers(deps),
    ...userHandlers(deps),
    ...reportHandlers(deps),
    ...adjustmentHandlers(deps),
    ...approvalHandlers(deps),
    ...estimateHandlers(deps),
    ...eventHandlers(deps),
    ...repTokenHandlers(deps),
    ...inquiryHandlers(deps),
    ...planAcceptanceHandlers(deps),
    ...paymentHandlers(deps),
  };
}
