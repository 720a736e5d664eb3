import type { DealChangeListener } from '../src/services/dealChanges.ts';
import type { PlanChangeListener } from '../src/services/planChanges.ts';

/** The deal pipeline alone, without earnings: what the bench measures as the ingestion floor. */
export const noDealChanges: DealChangeListener = {
  onDealChanged: async () => {},
};

/** The bench's set-up applies its plan before any deal exists: there is nothing to recompute. */
export const noPlanChanges: PlanChangeListener = {
  onPlanVersionApplied: async () => {},
  onPlanArchived: async () => {},
};
