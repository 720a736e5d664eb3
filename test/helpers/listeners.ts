import type { PeriodChangeListener } from '../../src/services/periodChanges.ts';
import type { PlanChangeListener } from '../../src/services/planChanges.ts';

// For tests of the admin services and the deal pipeline on their own, without the earnings engine or the recompute
// that production wires in (src/composition.ts).

export const noPlanChanges: PlanChangeListener = {
  onPlanVersionApplied: async () => {},
  onPlanArchived: async () => {},
};

export const noPeriodChanges: PeriodChangeListener = {
  onPeriodLocked: async () => {},
  onPeriodPaid: async () => {},
};
