import { type CauseEvent, isCompact, type StoredTrace, servedTrace } from '../../domain/earnings/storedTrace.ts';
import type { EarningTrace, EnginePlanVersion } from '../../domain/earnings/types.ts';
import * as domainEvents from '../../repositories/domainEvents.ts';
import * as planSnapshots from '../../repositories/planSnapshots.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import { enginePlanOf } from './engineAdapter.ts';

// The traces earnings rows serve, from the traces they store (domain/earnings/storedTrace.ts): every reader of a
// row's trace (the API's row, statements and their exports, estimates, the console's rows) goes through here, so
// each serves the same trace the engine made, whichever form the row stored it in.

/** What a reader reads of a row to serve its trace. */
export interface RowWithStoredTrace {
  plan_id: string;
  plan_version_id: string;
  rule_chip_id: string;
  rule_version: string;
  trace: StoredTrace;
}

/**
 * The rows with the traces they serve, in the order given: compact traces completed from their plan versions (each
 * read once) and their causes' domain events (read in one statement), in the caller's transaction.
 */
export async function withServedTraces<Row extends RowWithStoredTrace>(
  tx: Transaction,
  orgId: string,
  rows: readonly Row[],
): Promise<Array<Omit<Row, 'trace'> & { trace: EarningTrace }>> {
  const compact = rows.filter((row) => isCompact(row.trace));
  const plans = new Map<string, EnginePlanVersion>();
  const causeIds = new Set<string>();
  for (const row of compact) {
    const cause = row.trace.cause;
    if (cause) causeIds.add(cause.domain_event_id);
  }
  const causesRead = domainEvents.causesOf(tx, orgId, [...causeIds]);
  causesRead.catch(() => {});
  for (const row of compact) {
    if (plans.has(row.plan_version_id)) continue;
    const snapshot = await planSnapshots.versionSnapshot(tx, orgId, row.plan_id, row.plan_version_id);
    if (!snapshot) throw new Error(`plan ${row.plan_id} of org ${orgId} has no version ${row.plan_version_id}`);
    plans.set(row.plan_version_id, enginePlanOf(snapshot));
  }
  const causes = new Map<string, CauseEvent>((await causesRead).map((event) => [event.domain_event_id, event]));
  return rows.map((row) => {
    if (!isCompact(row.trace)) return row as Omit<Row, 'trace'> & { trace: EarningTrace };
    const cause = row.trace.cause ? causes.get(row.trace.cause.domain_event_id) : undefined;
    const plan = plans.get(row.plan_version_id) as EnginePlanVersion;
    return { ...row, trace: servedTrace(row.trace, row, plan, cause) };
  });
}
