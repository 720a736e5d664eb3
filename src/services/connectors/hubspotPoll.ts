import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import * as connections from '../../repositories/connections.ts';
import type { Transactor } from '../../repositories/transaction.ts';
import type { HubSpotSync } from './hubspotSync.ts';
import type { SubscriberLog } from './salesforceCdc.ts';

export interface PollOptions {
  /** How long a process's hold on a connection lasts unrenewed (the lease Salesforce's subscribers take). */
  leaseMs: number;
  /** How often each connection is reconciled (its search by `hs_lastmodifieddate`). */
  reconcileMs: number;
  now?: () => Date;
}

const SILENT: SubscriberLog = { warn: () => undefined, info: () => undefined };

/**
 * Where HubSpot's background work runs (docs/connectors.md, "Where it runs"): in each `quotient serve` and `quotient
 * worker` process, a round every third of a lease (at most every reconciliation interval) looks at the authorized
 * HubSpot connections; for each, the process that takes the connection's lease (the one lease a connection has, as
 * Salesforce's change subscriber takes it: `takeSubscriberLease`, renewed every third of its length while the work
 * runs, let go after) runs its work: a sync still `syncing` (the first one or a re-sync, cut by a restart or by
 * HubSpot's rate limit) runs again, and a connection due runs its reconciliation poll. So a sync or a poll runs in
 * one process at a time, and one cut by a process's end is taken up by another once its lease lapses.
 */
export class HubSpotPoller {
  readonly #db: Transactor;
  readonly #sync: HubSpotSync;
  readonly #options: PollOptions;
  readonly #now: () => Date;
  readonly #holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}:hubspot`;
  /** The work running in this process, by `org/connection`. */
  readonly #running = new Map<string, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #closing = false;
  #log: SubscriberLog = SILENT;

  constructor(db: Transactor, sync: HubSpotSync, options: PollOptions) {
    this.#db = db;
    this.#sync = sync;
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
  }

  /** This process takes part: a round now, then one every third of a lease (or the interval, if shorter). */
  serve(log: SubscriberLog = SILENT): void {
    if (this.#timer !== undefined || this.#closing) return;
    this.#log = log;
    const every = Math.max(1000, Math.min(this.#options.leaseMs / 3, this.#options.reconcileMs));
    const tick = () => {
      this.#round ??= this.round()
        .catch((error: unknown) => this.#log.warn({ err: error }, 'HubSpot connections: a round failed'))
        .finally(() => {
          this.#round = undefined;
        });
    };
    this.#timer = setInterval(tick, every);
    this.#timer.unref();
    tick();
  }

  /** One round over every connection: what is due runs, where this process takes the lease. Resolves once done. */
  async round(): Promise<void> {
    const found = await connections.pollable(this.#db.statements);
    await Promise.all(found.map(({ org_id: orgId, id }) => this.runDue(orgId, id)));
  }

  /**
   * The connection's due work, under its lease: a sync left `syncing`, or a reconciliation poll once the interval
   * since the last one has passed. Nothing when another process holds the lease.
   */
  runDue(orgId: string, id: string): Promise<void> {
    const due = this.exclusive(orgId, id, async (stand) => {
      if (stand.status === 'syncing') {
        await this.#sync.backfill(orgId, id, () => this.#closing);
        return;
      }
      const connection = await connections.find(this.#db.statements, orgId, id);
      // Due an interval after the last poll (the first time, after the first sync ended).
      const last = (connection?.reconciled_at ?? connection?.last_sync_at)?.getTime();
      if (last !== undefined && this.#now().getTime() - last < this.#options.reconcileMs) return;
      await this.#sync.reconcile(orgId, id, () => this.#closing);
    });
    return due.catch((error: unknown) => {
      this.#log.warn({ err: error, org_id: orgId, connection_id: id }, 'HubSpot connection: its work failed');
    });
  }

  /** The connection's reconciliation poll now, under its lease (nothing when another process holds it). */
  reconcileNow(orgId: string, id: string): Promise<void> {
    return this.exclusive(orgId, id, () => this.#sync.reconcile(orgId, id, () => this.#closing));
  }

  /**
   * Runs `work` holding the connection's lease (renewed meanwhile, let go after); resolves at once when another
   * process holds it, or this one runs the connection's work already. A fault of the work is thrown.
   */
  async exclusive(
    orgId: string,
    id: string,
    work: (stand: connections.SubscriberStand) => Promise<void>,
  ): Promise<void> {
    const key = `${orgId}/${id}`;
    if (this.#closing || this.#running.has(key)) return;
    const run = (async () => {
      const stand = await connections.takeSubscriberLease(this.#db.statements, orgId, id, this.#lease());
      if (stand === null) return;
      const renewal = setInterval(() => {
        connections.takeSubscriberLease(this.#db.statements, orgId, id, this.#lease()).catch(() => undefined);
      }, this.#options.leaseMs / 3);
      try {
        await work(stand);
      } finally {
        clearInterval(renewal);
        await connections.releaseSubscriberLease(this.#db.statements, orgId, id, this.#holder).catch(() => undefined);
      }
    })();
    const held = run.then(
      () => undefined,
      () => undefined,
    );
    this.#running.set(key, held);
    try {
      await run;
    } finally {
      if (this.#running.get(key) === held) this.#running.delete(key);
    }
  }

  /** No round or work starts any more; the work running ends after the page in hand (its lease let go). */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await Promise.all([this.#round, ...this.#running.values()]);
  }

  #lease(): { holder: string; now: Date; until: Date } {
    const now = this.#now();
    return { holder: this.#holder, now, until: new Date(now.getTime() + this.#options.leaseMs) };
  }
}
