import type { JsonValue } from '../json.ts';
import { drawChip } from './draws.ts';
import { periodOfTrace } from './ledger.ts';
import { chipSettings, traceSource } from './lineTrace.ts';
import type { EarningTrace, EnginePlanVersion, TraceCause } from './types.ts';

// An earnings row's trace as stored: only what cannot be derived again. A trace names its plan version and chip
// (with the chip's definition), the deal event that caused the row and, in the row's every reader, the same text of
// each: the plan and chip come back from the plan version (which never changes once written) and the cause's event
// from its domain event, and the period's kind and dates from its id. What the SQL of the ledger reads inside a
// trace stays where it was: `period.id`, `chip.kind`,
// and on a draw's rows `chip.definition` (its `recoverable`). A trace stored whole (every row written before this
// form, which has `plan`) is served as it is.

/** The trace of a row as its `trace` column holds it. */
export type StoredTrace = StoredCompactTrace | EarningTrace;

/**
 * The compact form: no `plan`, the chip by its kind (and a draw's settings), the period by its id and status, the
 * cause by its domain event.
 */
export interface StoredCompactTrace extends Omit<EarningTrace, 'plan' | 'chip' | 'cause' | 'period'> {
  chip: { kind: EarningTrace['chip']['kind']; definition?: Record<string, unknown> };
  period: Pick<EarningTrace['period'], 'id' | 'status'>;
  cause?: { domain_event_id: string };
}

/** A domain event as a trace's cause names it: the event, its deal, and the changes it made. */
export interface CauseEvent {
  domain_event_id: string;
  event_kind: string;
  deal_id: string;
  deal_external_id: string;
  changes: ReadonlyArray<{ field: string; old?: JsonValue; new?: JsonValue }>;
}

const DRAW_KINDS: ReadonlySet<string> = new Set(['draw', 'draw_recovery']);

/** Whether a stored trace is in the compact form (else it is stored whole, or is no engine's trace: served as is). */
export function isCompact(stored: StoredTrace): stored is StoredCompactTrace {
  return !('plan' in stored) && 'chip' in stored && 'steps' in stored;
}

/** The trace a row stores for the trace the engine and the ledger made. */
export function compactTrace(trace: EarningTrace): StoredCompactTrace {
  const { plan: _plan, chip, cause, period, ...kept } = trace;
  const { key: _key, name: _name, kind: _kind, ...settings } = chip.definition;
  return {
    ...kept,
    period: { id: period.id, status: period.status },
    chip: DRAW_KINDS.has(chip.kind) ? { kind: chip.kind, definition: settings } : { kind: chip.kind },
    ...(cause ? { cause: { domain_event_id: cause.domain_event_id } } : {}),
  };
}

/** What a row says of itself beside its trace, that the trace names. */
export interface TracedRow {
  rule_chip_id: string;
  rule_version: string;
}

/**
 * The trace a row serves: a compact one completed from its plan version (the engine's view of it, as evaluations
 * read it) and its cause's domain event, with its keys in the order a whole trace comes back from the database;
 * a trace stored whole, as it is. Throws when the plan version does not have the row's chip (a row is written only
 * for a chip of its version).
 */
export function servedTrace(
  stored: StoredTrace,
  row: TracedRow,
  plan: EnginePlanVersion,
  cause: CauseEvent | undefined,
): EarningTrace {
  if (!isCompact(stored)) return stored;
  const { chip: storedChip, cause: storedCause, period, ...kept } = stored;
  const source = DRAW_KINDS.has(storedChip.kind)
    ? traceSource(plan, drawChip(plan, storedChip.kind === 'draw_recovery'), storedChip.definition ?? {})
    : planChipSource(plan, row.rule_chip_id);
  if (source.chip.id !== row.rule_chip_id || source.chip.version !== row.rule_version) {
    throw new Error(`plan version ${plan.version_id} does not name chip ${row.rule_chip_id} as its row does`);
  }
  let servedCause: TraceCause | undefined;
  if (storedCause) {
    if (!cause || cause.domain_event_id !== storedCause.domain_event_id) {
      throw new Error(`the domain event ${storedCause.domain_event_id} of a trace's cause was not found`);
    }
    servedCause = {
      domain_event_id: cause.domain_event_id,
      event_kind: cause.event_kind as TraceCause['event_kind'],
      deal_id: cause.deal_id,
      deal_external_id: cause.deal_external_id,
      changes: cause.changes.map((change) => ({ field: change.field, from: change.old, to: change.new })),
    };
  }
  return inStoredOrder({
    ...kept,
    ...source,
    period: periodOfTrace(period.id, period.status),
    ...(servedCause ? { cause: servedCause } : {}),
  }) as EarningTrace;
}

function planChipSource(plan: EnginePlanVersion, chipId: string) {
  const chip = plan.chips.find((candidate) => candidate.id === chipId);
  if (!chip) throw new Error(`plan version ${plan.version_id} has no chip ${chipId}`);
  return traceSource(plan, chip, chipSettings(chip));
}

/**
 * A JSON value with its objects' keys in the order PostgreSQL's `jsonb` keeps them (shorter keys first, keys of one
 * length by their bytes), and without the undefined members JSON leaves out: how a trace stored whole is read back,
 * so that a served trace is the same text whichever form it was stored in.
 */
export function inStoredOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : inStoredOrder(item)));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, member]) => member !== undefined);
  const keyed = entries.map(([key, member]) => ({ key, bytes: Buffer.from(key, 'utf8'), member }));
  keyed.sort((a, b) => a.bytes.length - b.bytes.length || Buffer.compare(a.bytes, b.bytes));
  const ordered: Record<string, unknown> = {};
  for (const { key, member } of keyed) ordered[key] = inStoredOrder(member);
  return ordered;
}
