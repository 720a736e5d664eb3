import type { Logger } from '../lib/logger.ts';
import * as apiKeys from '../repositories/apiKeys.ts';
import type { AuditEntryInput } from '../repositories/audit.ts';
import * as audit from '../repositories/audit.ts';
import type { Transaction } from '../repositories/transaction.ts';

export interface AuditLogOptions {
  flushIntervalMs?: number;
  maxBatch?: number;
  /** Beyond this many unwritten entries (a long database outage) the oldest are dropped, with a log line. */
  maxQueued?: number;
}

/**
 * Writes audit entries and keys' last_used_at off the response path: requests enqueue, a timer writes
 * batches. close() writes everything still queued, so a graceful shutdown loses nothing.
 */
export class AuditLog {
  private readonly statements: Transaction;
  private readonly logger: Logger;
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;
  private readonly maxQueued: number;
  private queue: AuditEntryInput[] = [];
  /** By key id: the key's org and when it was last used. */
  private lastUsed = new Map<string, { orgId: string; at: Date }>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private closed = false;

  constructor(statements: Transaction, logger: Logger, options: AuditLogOptions = {}) {
    this.statements = statements;
    this.logger = logger;
    this.flushIntervalMs = options.flushIntervalMs ?? 200;
    this.maxBatch = options.maxBatch ?? 1000;
    this.maxQueued = options.maxQueued ?? 100_000;
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.flushIntervalMs);
    this.timer.unref();
  }

  record(entry: AuditEntryInput): void {
    if (this.queue.length >= this.maxQueued) {
      this.queue.shift();
      this.logger.error({ max_queued: this.maxQueued }, 'audit queue full; dropped the oldest entry');
    }
    this.queue.push(entry);
  }

  keyUsed(orgId: string, keyId: string, at: Date): void {
    const previous = this.lastUsed.get(keyId);
    if (!previous || previous.at < at) this.lastUsed.set(keyId, { orgId, at });
  }

  depth(): number {
    return this.queue.length;
  }

  /** Writes what is queued now; concurrent callers share one flush. */
  flush(): Promise<void> {
    this.flushing ??= this.writeQueued().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.flushing;
    // Requests that finished while the last flush ran are queued again: write until nothing is left.
    while (this.queue.length > 0 || this.lastUsed.size > 0) {
      const before = this.queue.length + this.lastUsed.size;
      await this.flush();
      if (this.queue.length + this.lastUsed.size >= before) {
        throw new Error(`could not write ${this.queue.length} audit entries on shutdown`);
      }
    }
  }

  private async writeQueued(): Promise<void> {
    if (this.lastUsed.size > 0) {
      const lastUsed = this.lastUsed;
      this.lastUsed = new Map();
      try {
        await apiKeys.recordLastUsed(this.statements, lastUsed);
      } catch (error) {
        for (const [keyId, use] of lastUsed) this.keyUsed(use.orgId, keyId, use.at);
        this.logger.warn({ err: error }, 'could not record last use of keys; will retry');
      }
    }
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, this.maxBatch);
      try {
        await audit.insertMany(this.statements, batch);
        this.queue.splice(0, batch.length);
      } catch (error) {
        this.logger.warn({ err: error, queued: this.queue.length }, 'could not write audit entries; will retry');
        return;
      }
    }
  }
}
