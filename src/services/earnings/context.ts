import type { CalendarDate } from '../../domain/periods.ts';
import type { EnginePlanVersions } from './engineAdapter.ts';

/** What every evaluation of one process shares: the plan versions read so far, and today's date. */
export interface EvaluationContext {
  versions: EnginePlanVersions;
  /** Today's UTC date: open deals without a close date are projected in its period. */
  today: () => CalendarDate;
}
