import * as earningsStream from '../repositories/earningsStream.ts';
import type { Transactor } from '../repositories/transaction.ts';

/** One rep's rows of one period and deal that were just written, as the stream announces them. */
export interface EarningsChange {
  type: 'earnings.changed';
  user_id: string;
  user_external_id: string;
  period_id: string;
  deal_id: string | null;
  earning_ids: string[];
}

export interface EarningsStreamSettings {
  /** How often a watch reads the table. */
  pollMs: number;
  /**
   * How far back each read looks again: a row's `created_at` is its transaction's start, so a transaction that
   * commits after a read that started later is still found by the next reads within this margin.
   */
  lookbackMs: number;
  /** A stream ends after this long; the client reconnects (with Last-Event-ID) under a fresh check of its key. */
  maxMs: number;
}

export const EARNINGS_STREAM_DEFAULTS: EarningsStreamSettings = { pollMs: 500, lookbackMs: 5_000, maxMs: 5 * 60_000 };

const READ_LIMIT = 1_000;

/** Who a watch is for: the org, and the reps whose rows it may see (null: every rep of the org). */
export interface StreamViewer {
  orgId: string;
  userIds: readonly string[] | null;
}

/**
 * Tells open streams which earning rows were written, by reading the earnings table by time (its index on
 * `(org_id, created_at, id)`) rather than by LISTEN/NOTIFY: a transaction pooler (PgBouncer in transaction mode)
 * keeps no session to listen on, and the row may have been written by another API process. Each read starts
 * `lookbackMs` before the previous read's database clock and skips the rows it already announced.
 */
export class EarningsStream {
  readonly #pool: Transactor;
  readonly settings: EarningsStreamSettings;
  readonly #open = new Set<() => void>();

  constructor(pool: Transactor, settings: Partial<EarningsStreamSettings> = {}) {
    this.#pool = pool;
    this.settings = { ...EARNINGS_STREAM_DEFAULTS, ...settings };
  }

  /** A watch from `resumeAt` (a position an earlier stream sent, in ms), else from now. */
  watch(viewer: StreamViewer, resumeAt: number | null): EarningsWatch {
    return earningsWatch(this.#pool, viewer, this.settings, resumeAt);
  }

  /** Registers how to end one open stream, for `endAll`; returns its removal. */
  opened(end: () => void): () => void {
    this.#open.add(end);
    return () => this.#open.delete(end);
  }

  /** Ends every open stream (the server is shutting down; clients reconnect elsewhere). */
  endAll(): void {
    for (const end of [...this.#open]) end();
  }
}

/** One stream's reads: each announces the rows written since the previous one that it has not announced yet. */
export interface EarningsWatch {
  /** Reads once: the changes not announced yet, and the position to resume from after them (ms). */
  read(): Promise<{ changes: EarningsChange[]; position: number }>;
}

function earningsWatch(
  pool: Transactor,
  viewer: StreamViewer,
  settings: EarningsStreamSettings,
  resumeAt: number | null,
): EarningsWatch {
  let since: Date | null = resumeAt === null ? null : new Date(resumeAt - settings.lookbackMs);
  const announced = new Map<string, number>();
  return {
    async read() {
      const tx = pool.statements;
      if (since === null) {
        // The first read only fixes where the watch starts, on the database's clock.
        const { readAt } = await earningsStream.writtenSince(tx, viewer.orgId, [], new Date(), 0);
        since = readAt;
        return { changes: [], position: readAt.getTime() };
      }
      const { rows, readAt } = await earningsStream.writtenSince(tx, viewer.orgId, viewer.userIds, since, READ_LIMIT);
      const fresh = rows.filter((row) => !announced.has(row.id));
      for (const row of fresh) announced.set(row.id, row.created_at.getTime());
      // A full read may have left rows behind: continue from its last row rather than from the clock.
      const last = rows.at(-1);
      const reached = rows.length === READ_LIMIT && last ? last.created_at : readAt;
      since = new Date(reached.getTime() - settings.lookbackMs);
      const forgetBefore = since.getTime();
      for (const [id, at] of announced) if (at < forgetBefore) announced.delete(id);
      return { changes: groupChanges(fresh), position: reached.getTime() };
    },
  };
}

function groupChanges(rows: readonly earningsStream.WrittenRowNotice[]): EarningsChange[] {
  const byLine = new Map<string, EarningsChange>();
  for (const row of rows) {
    const key = `${row.user_id}|${row.period_id}|${row.deal_id ?? ''}`;
    const change = byLine.get(key);
    if (change) change.earning_ids.push(row.id);
    else {
      byLine.set(key, {
        type: 'earnings.changed',
        user_id: row.user_id,
        user_external_id: row.user_external_id,
        period_id: row.period_id,
        deal_id: row.deal_id,
        earning_ids: [row.id],
      });
    }
  }
  return [...byLine.values()];
}
