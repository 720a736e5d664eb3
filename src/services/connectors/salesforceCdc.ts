import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { deletionKey, type OpportunityRecord, opportunitiesByIdQuery } from '../../domain/connectors/salesforce.ts';
import {
  type ChangeContext,
  changeEvent,
  headerOf,
  isGap,
  RefusedChange,
} from '../../domain/connectors/salesforceChanges.ts';
import { parseDealEvent } from '../../domain/deals/event.ts';
import type { JsonObject } from '../../domain/json.ts';
import { Refusal } from '../../domain/refusal.ts';
import * as connections from '../../repositories/connections.ts';
import * as deals from '../../repositories/deals.ts';
import type { Transactor } from '../../repositories/transaction.ts';
import type { BatchEvent, DealEventBatch } from '../dealEventBatch.ts';
import { CrmRefusal } from './crmRefusal.ts';
import type { SalesforceClient } from './salesforceApi.ts';
import {
  connectPubSub,
  type FetchResponse,
  isConnectionFault,
  isReplayIdRefused,
  isStreamEnd,
  isUnauthenticated,
  type PubSubClient,
  type StreamEnd,
  type Subscription,
  streamEndOf,
} from './salesforcePubSub.ts';
import type { OrgReading, SalesforceSync } from './salesforceSync.ts';

/** The change channel of Opportunities (Setup → Change Data Capture: Opportunity selected). */
export const OPPORTUNITY_CHANNEL = '/data/OpportunityChangeEvent';

export interface CdcOptions {
  /** The Pub/Sub API's address (`api.pubsub.salesforce.com:7443`). */
  pubSubUrl: string;
  now?: () => Date;
  /** Events asked for at once (FetchRequest's `num_requested`). */
  batchSize?: number;
  leaseMs?: number;
  /** The first wait before subscribing again after a dropped stream; doubled per failure, up to 30 s. */
  retryMs?: number;
  /** How often the subscriber's reconciliation poll runs while it is subscribed (15 minutes unless set). */
  reconcileMs?: number;
}

interface Running {
  stopped: boolean;
  subscription: Subscription | null;
  wake: (() => void) | null;
  done: Promise<void>;
}

/** How a session ended: the stream's end, whether Salesforce answered at all, and whether it took the subscription. */
type SessionEnd = { end: StreamEnd; reached: boolean; subscribed: boolean } | 'stopped' | 'lost';

/** Where a serving process says what it cannot do itself (its log; pino's logger is one). */
export interface SubscriberLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

const SILENT: SubscriberLog = { warn: () => undefined, info: () => undefined };

/** Failed attempts to reach the Pub/Sub API before the process leaves the lease to another for a lease's length. */
const UNREACHABLE_TRIES = 3;

/**
 * The Change Data Capture subscriber of each Salesforce connection (docs/connectors.md, "Live changes"): one per
 * connection across every process, by a lease on the connection's row taken and renewed by its holder (taken over
 * once it lapses, when the holder died). It subscribes to `/data/OpportunityChangeEvent` after the stored replay id
 * (the earliest retained event the first time), turns each batch's changes into deal events through the deal-event
 * batch, each with the dedup key of its change (transaction key and sequence number, per record), and stores the
 * replay id after the batch is committed before it asks for more. GAP events and UPDATEs of records Quotient does
 * not have are answered by reading the records over REST; a replay id Salesforce refuses (past the retention) by a
 * re-sync from the connection's last change, then a subscription from the earliest retained event. A dropped
 * stream, or a database error, is subscribed again from the stored replay id, with backoff; a session Salesforce
 * refuses is renewed once, then subscribed again.
 *
 * What is the process's own (it lacks the key the connection's credentials are sealed with, it cannot reach the
 * Pub/Sub API, its database failed) is written to its log, never to the connection: a process without the key takes
 * no lease, and one that cannot reach Salesforce lets its lease go, so that a process that can serves the
 * connection. A connection is `failing` only for a fault of its own (Salesforce refuses its session or channel).
 */
export class SalesforceCdc {
  readonly #db: Transactor;
  readonly #batch: DealEventBatch;
  readonly #sync: SalesforceSync;
  readonly #options: Required<Omit<CdcOptions, 'now'>>;
  readonly #now: () => Date;
  readonly #holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  readonly #running = new Map<string, Running>();
  /** What keeps this process from serving a connection now, as last logged (cleared once it subscribes). */
  readonly #conditions = new Map<string, string>();
  #log: SubscriberLog = SILENT;
  #serving = false;
  #closing = false;

  constructor(db: Transactor, batch: DealEventBatch, sync: SalesforceSync, options: CdcOptions) {
    this.#db = db;
    this.#batch = batch;
    this.#sync = sync;
    this.#now = options.now ?? (() => new Date());
    this.#options = {
      pubSubUrl: options.pubSubUrl,
      batchSize: options.batchSize ?? 100,
      leaseMs: options.leaseMs ?? 60_000,
      retryMs: options.retryMs ?? 250,
      reconcileMs: options.reconcileMs ?? 15 * 60_000,
    };
  }

  /**
   * This process serves: it runs a subscriber for each Salesforce connection that is authorized and not paused now
   * (each then held by one process at a time), and for each connected from now on. Other processes (the CLI) never
   * run one.
   */
  async serve(log: SubscriberLog = SILENT): Promise<void> {
    this.#log = log;
    this.#serving = true;
    for (const found of await connections.subscribable(this.#db.statements)) this.start(found.org_id, found.id);
  }

  /** What keeps this process from serving connections now, by `org/connection` (its log says the same). */
  conditions(): ReadonlyMap<string, string> {
    return this.#conditions;
  }

  /** Starts the connection's subscriber in this process, if it serves and the subscriber does not run here yet. */
  start(orgId: string, id: string): void {
    const key = `${orgId}/${id}`;
    if (!this.#serving || this.#closing || this.#running.has(key)) return;
    const running: Running = { stopped: false, subscription: null, wake: null, done: Promise.resolve() };
    running.done = this.#run(orgId, id, running)
      .catch((error: unknown) => {
        this.#log.warn({ err: error, org_id: orgId, connection_id: id }, 'the Salesforce change subscriber stopped');
      })
      .finally(() => {
        if (this.#running.get(key) === running) this.#running.delete(key);
      });
    this.#running.set(key, running);
  }

  /** Stops the connection's subscriber (paused, removed, or the process closes) after the batch in hand. */
  async stop(orgId: string, id: string): Promise<void> {
    const running = this.#running.get(`${orgId}/${id}`);
    if (!running) return;
    running.stopped = true;
    running.subscription?.cancel();
    running.wake?.();
    await running.done;
  }

  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all([...this.#running.keys()].map((key) => this.stop(...(key.split('/') as [string, string]))));
  }

  #until(): Date {
    return new Date(this.#now().getTime() + this.#options.leaseMs);
  }

  async #sleep(running: Running, ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      running.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    running.wake = null;
  }

  #backoff(failures: number): number {
    return Math.min(30_000, this.#options.retryMs * 2 ** Math.max(0, failures - 1));
  }

  /** A condition of this process's (not the connection's), logged when it begins or changes. */
  #note(orgId: string, id: string, condition: string, error?: unknown): void {
    const key = `${orgId}/${id}`;
    if (this.#conditions.get(key) === condition) return;
    this.#conditions.set(key, condition);
    this.#log.warn(
      { org_id: orgId, connection_id: id, ...(error === undefined ? {} : { err: error }) },
      `Salesforce change subscriber: ${condition}`,
    );
  }

  #cleared(orgId: string, id: string): void {
    const key = `${orgId}/${id}`;
    if (!this.#conditions.delete(key)) return;
    this.#log.info({ org_id: orgId, connection_id: id }, 'Salesforce change subscriber: subscribed again');
  }

  async #run(orgId: string, id: string, running: Running): Promise<void> {
    let failures = 0;
    let renewed = false;
    let held = false;
    try {
      while (!running.stopped) {
        try {
          const credentials = await connections.findCredentials(this.#db.statements, orgId, id);
          if (!credentials || credentials.status === 'paused') return;
          if (!this.#sync.opens(credentials)) {
            // Sealed under another key than this process's: the processes that have it serve the connection.
            this.#note(
              orgId,
              id,
              "this process cannot open the connection's credentials (another QUOTIENT_SECRET_KEY); left to the processes that can",
            );
            return;
          }
          const lease = { holder: this.#holder, now: this.#now(), until: this.#until() };
          const stand = await connections.takeSubscriberLease(this.#db.statements, orgId, id, lease);
          held = stand !== null;
          if (!stand) {
            await this.#sleep(running, this.#options.leaseMs / 2);
            continue;
          }
          const session = await this.#session(orgId, id, stand, running).catch((error: unknown) => {
            if (!(error instanceof CrmRefusal) || !error.unreachable) throw error;
            return { end: { code: -1, message: error.message, errorCode: null }, reached: false, subscribed: false };
          });
          if (session === 'stopped') return;
          if (session === 'lost') continue;
          const { end, reached, subscribed } = session;
          if (subscribed) {
            renewed = false;
            failures = 0;
            this.#cleared(orgId, id);
          }
          if (isReplayIdRefused(end)) {
            await this.#reconcile(orgId, id, stand, running);
            failures = 0;
            continue;
          }
          if (isUnauthenticated(end) && !renewed) {
            // The session ended in Salesforce (expired, revoked): a new one, then the stream again from the replay id.
            renewed = true;
            await this.#sync.renew(credentials);
            continue;
          }
          failures += 1;
          if (isConnectionFault(end)) {
            await connections.recordFailure(
              this.#db.statements,
              orgId,
              id,
              `Salesforce Pub/Sub answered ${end.code}: ${end.message}`,
              [],
            );
          } else if (!reached) {
            this.#note(orgId, id, `this process cannot reach Salesforce (${end.message})`);
            if (failures >= UNREACHABLE_TRIES) {
              // Another process may reach it: the lease is theirs to take for a lease's length.
              await connections.releaseSubscriberLease(this.#db.statements, orgId, id, this.#holder);
              held = false;
              failures = 0;
              await this.#sleep(running, this.#options.leaseMs);
              continue;
            }
          }
          await this.#sleep(running, this.#backoff(failures));
        } catch (error) {
          if (error instanceof CrmRefusal && error.unreachable) {
            // Salesforce's REST API not reached (a re-sync from the last change): this process's condition.
            failures += 1;
            this.#note(orgId, id, `this process cannot reach Salesforce (${error.message})`);
            if (failures >= UNREACHABLE_TRIES) {
              await connections.releaseSubscriberLease(this.#db.statements, orgId, id, this.#holder);
              held = false;
              failures = 0;
              await this.#sleep(running, this.#options.leaseMs);
              continue;
            }
          } else if (error instanceof CrmRefusal || error instanceof Refusal) {
            // Salesforce refused the connection's credentials or calls: the connection's own fault.
            failures += 1;
            await connections
              .recordFailure(this.#db.statements, orgId, id, error.message, [])
              .catch((failed: unknown) => this.#note(orgId, id, 'its database failed', failed));
          } else {
            // The database (or another fault of this process's): subscribed again from the stored replay id.
            failures += 1;
            this.#note(
              orgId,
              id,
              `it failed and subscribes again: ${error instanceof Error ? error.message : String(error)}`,
              error,
            );
          }
          await this.#sleep(running, this.#backoff(failures));
        }
      }
    } finally {
      if (held) {
        await connections.releaseSubscriberLease(this.#db.statements, orgId, id, this.#holder).catch(() => undefined);
      }
    }
  }

  /** The replay id is past Salesforce's retention: what changed since the last change seen is read over REST. */
  async #reconcile(orgId: string, id: string, stand: connections.SubscriberStand, running: Running): Promise<void> {
    await connections.setStatus(this.#db.statements, orgId, id, 'syncing', { syncFrom: stand.last_change_at });
    await this.#sync.backfill(orgId, id, () => running.stopped, { unreachableTries: 1, handBack: true });
    await connections.storeReplayId(this.#db.statements, orgId, id, {
      holder: this.#holder,
      replayId: null,
      lastChangeAt: null,
      until: this.#until(),
    });
  }

  /**
   * The reconciliation poll, under the subscriber's lease: what Salesforce changed since the newest change the last
   * poll (or sync) read, and the revenue splits changed, applied where the deal does not have them yet; the repairs
   * counted on the connection (and said in the log). A refusal of Salesforce's is the connection's; not reaching
   * Salesforce is this process's (its log), and the next poll tries again.
   */
  async #poll(orgId: string, id: string, client: SalesforceClient): Promise<void> {
    const connection = await connections.findCredentials(this.#db.statements, orgId, id);
    if (!connection?.account_id || connection.status === 'paused') return;
    let result: Awaited<ReturnType<SalesforceSync['reconcileChanges']>>;
    try {
      result = await this.#sync.reconcileChanges(orgId, connection, client);
    } catch (error) {
      if (!(error instanceof CrmRefusal)) throw error;
      if (error.unreachable) {
        this.#note(orgId, id, `this process cannot reach Salesforce (${error.message})`);
        return;
      }
      await connections.recordFailure(this.#db.statements, orgId, id, error.message, []);
      return;
    }
    await this.#sync.reportProblems(orgId, id, result.problems);
    await connections.recordHeldReconciliation(this.#db.statements, orgId, id, {
      holder: this.#holder,
      from: result.from,
      nextFrom: result.reconciledTo,
      read: result.read,
      repaired: result.repaired,
      repairedIds: result.repairedIds,
    });
    if (result.repaired > 0) {
      this.#log.info(
        { org_id: orgId, connection_id: id, repaired: result.repaired },
        'Salesforce reconciliation: applied changes the live channel missed',
      );
    }
  }

  /** One Subscribe stream, batch by batch, until it ends, the subscriber stops, or the lease is lost. */
  async #session(orgId: string, id: string, stand: connections.SubscriberStand, running: Running): Promise<SessionEnd> {
    const connection = await connections.findCredentials(this.#db.statements, orgId, id);
    if (!connection?.account_id || !connection.instance_url) return 'stopped';
    const sfOrgId = connection.account_id;
    const client = await this.#sync.client(connection);
    const reading = { current: await this.#sync.orgReading(orgId, client) };
    const pubsub = connectPubSub(this.#options.pubSubUrl, {
      accessToken: await this.#sync.accessToken(connection),
      instanceUrl: connection.instance_url,
      tenantId: sfOrgId,
    });
    let replayId = stand.cdc_replay_id;
    const after = replayId === null ? null : Buffer.from(replayId, 'base64');
    const subscription = pubsub.subscribe(OPPORTUNITY_CHANNEL, after, this.#options.batchSize);
    running.subscription = subscription;
    // The batches and the reconciliation polls, one at a time: a poll never compares a deal a batch is changing.
    let chain: Promise<unknown> = Promise.resolve();
    const serially = <T>(work: () => Promise<T>): Promise<T> => {
      const next = chain.then(work);
      chain = next.catch(() => undefined);
      return next;
    };
    const polling = setInterval(() => {
      serially(() => this.#poll(orgId, id, client)).catch((error: unknown) => {
        this.#note(orgId, id, 'its reconciliation poll failed', error);
      });
    }, this.#options.reconcileMs);
    const renewal = setInterval(() => {
      const lease = { holder: this.#holder, now: this.#now(), until: this.#until() };
      connections
        .takeSubscriberLease(this.#db.statements, orgId, id, lease)
        .then((kept) => {
          if (!kept) subscription.cancel();
        })
        .catch(() => undefined);
    }, this.#options.leaseMs / 3);
    try {
      for (let first = true; ; first = false) {
        const item = await subscription.next();
        if (running.stopped) return 'stopped';
        if (isStreamEnd(item)) return { end: item, reached: subscription.reached, subscribed: subscription.subscribed };
        if (first) {
          // Subscribed: a failure to reach Salesforce before is over (problems of records stay until the next one).
          await connections.recordSuccess(this.#db.statements, orgId, id, {
            appliedIds: [],
            lastChangeAt: null,
            synced: false,
          });
        }
        let lastChange: Date | null;
        try {
          lastChange = await serially(() => this.#commit(orgId, id, sfOrgId, client, reading, pubsub, item));
        } catch (error) {
          // GetSchema refused (the session ended mid-stream): the batch is not committed, its replay id not stored.
          const end = streamEndOf(error);
          if (end === null) throw error;
          return { end, reached: true, subscribed: false };
        }
        const last = item.events.at(-1)?.replay_id ?? item.latest_replay_id;
        if (last && last.length > 0) replayId = last.toString('base64');
        const kept = await connections.storeReplayId(this.#db.statements, orgId, id, {
          holder: this.#holder,
          replayId,
          lastChangeAt: lastChange,
          until: this.#until(),
        });
        if (!kept) {
          subscription.cancel();
          return 'lost';
        }
        if (item.events.length > 0) subscription.request(item.events.length);
      }
    } finally {
      clearInterval(polling);
      clearInterval(renewal);
      await chain;
      running.subscription = null;
      subscription.cancel();
      pubsub.close();
    }
  }

  /** A batch's changes applied: its deal events, its deletions, and the records GAP events name read over REST. */
  async #commit(
    orgId: string,
    id: string,
    sfOrgId: string,
    client: SalesforceClient,
    reading: { current: OrgReading },
    pubsub: PubSubClient,
    response: FetchResponse,
  ): Promise<Date | null> {
    if (response.events.length === 0) return null;
    const events: BatchEvent[] = [];
    const problems: string[] = [];
    const refetch = new Set<string>();
    const created = new Set<string>();
    let lastChange: number | null = null;
    let refreshed = false;
    for (const consumer of response.events) {
      const { payload, schema } = await pubsub.decode(consumer);
      const header = headerOf(payload, schema);
      if (header.entityName !== '' && header.entityName !== 'Opportunity') continue;
      if (header.commitTimestamp > 0) lastChange = Math.max(lastChange ?? 0, header.commitTimestamp);
      for (const recordId of header.recordIds) {
        if (isGap(header.changeType)) {
          refetch.add(recordId);
          continue;
        }
        const existing = await deals.findByExternalId(this.#db.statements, orgId, recordId);
        if (header.changeType === 'DELETE') {
          if (existing || created.has(recordId)) events.push(deletion(sfOrgId, recordId));
          continue;
        }
        if (header.changeType === 'UPDATE' && !existing && !created.has(recordId)) {
          refetch.add(recordId);
          continue;
        }
        const read = () => changeEvent(contextOf(sfOrgId, reading.current, existing), recordId, header, payload);
        try {
          let body: JsonObject;
          try {
            body = read();
          } catch (error) {
            // A user added since the subscription began: the org's users are read again, once a batch.
            if (!(error instanceof RefusedChange) || !error.message.startsWith('owner:') || refreshed) throw error;
            refreshed = true;
            reading.current = await this.#sync.orgReading(orgId, client);
            body = read();
          }
          events.push({ event: parseDealEvent(body), body });
          created.add(recordId);
        } catch (error) {
          if (!(error instanceof RefusedChange) && !(error instanceof Refusal)) throw error;
          problems.push(`Salesforce Opportunity ${recordId}: ${error.message}`);
        }
      }
    }
    if (events.length > 0) {
      await this.#batch.ingestAll({ orgId, keyId: null, events, receivedAt: this.#now() });
    }
    if (refetch.size > 0) {
      const soql = opportunitiesByIdQuery(reading.current.fields, [...refetch].sort());
      const page = await client.page(soql, { all: true });
      const records: OpportunityRecord[] = [...page.records];
      let next = page.next;
      while (next !== undefined) {
        const more = await client.next(next);
        records.push(...more.records);
        next = more.next;
      }
      const applied = await this.#sync.apply(orgId, sfOrgId, reading.current, records, client);
      problems.push(...applied.problems);
    }
    await this.#sync.reportProblems(orgId, id, problems);
    return lastChange === null ? null : new Date(lastChange);
  }
}

function contextOf(sfOrgId: string, reading: OrgReading, existing: deals.DealRecord | null): ChangeContext {
  const reps = new Map(reading.owners.map((owner) => [owner.owner_id, owner.rep_external_id]));
  const custom: Record<string, string> = {};
  for (const [field, spec] of Object.entries(reading.mapping.custom)) {
    if (typeof spec.column === 'string') custom[field] = spec.column;
  }
  return {
    sfOrgId,
    stages: reading.stages,
    repOfUser: (userId) => reps.get(userId) ?? null,
    currency: existing?.currency ?? reading.corporateCurrency ?? reading.fallbackCurrency,
    custom,
  };
}

/** A deletion, with the dedup key a re-sync's read of the deleted record has too: the deal is deleted once. */
function deletion(sfOrgId: string, recordId: string): BatchEvent {
  const body: JsonObject = {
    external_id: recordId,
    event_type: 'delete',
    state: {},
    dedup_key: deletionKey(sfOrgId, recordId),
  };
  return { event: parseDealEvent(body), body };
}
