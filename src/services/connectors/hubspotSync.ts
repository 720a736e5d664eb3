import {
  type DealChangeEvent,
  dealProperties,
  dealRecord,
  deletionKey,
  type HubSpotDeal,
  matchOwners,
  type OwnerMatch,
  type PipelineStage,
  pendingEntry,
  portalMapping,
  versionKey,
} from '../../domain/connectors/hubspot.ts';
import { type DealEvent, parseDealEvent } from '../../domain/deals/event.ts';
import type { Mapping } from '../../domain/imports/mapping.ts';
import { RefusedRow, RowMapper } from '../../domain/imports/recordMapper.ts';
import type { JsonObject } from '../../domain/json.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { SecretBox } from '../../lib/secretBox.ts';
import * as connections from '../../repositories/connections.ts';
import * as dealsBulk from '../../repositories/dealsBulk.ts';
import * as orgs from '../../repositories/orgs.ts';
import type { Transactor } from '../../repositories/transaction.ts';
import * as users from '../../repositories/users.ts';
import type { BatchEvent, DealEventBatch } from '../dealEventBatch.ts';
import type { ConnectionPreview } from './connectionAdmin.ts';
import * as hubspot from './hubspotApi.ts';

/** A token is refreshed when it expires within this margin, so that no call is made with one about to expire. */
export const REFRESH_MARGIN_MS = 5 * 60 * 1000;

/** What a sealed value of a connection is bound to: it opens only as that connection's. */
export function sealedBinding(orgId: string, connectionId: string, field: string): string {
  return `crm_connection:${orgId}:${connectionId}:${field}`;
}

/** The portal as the mapping reads it: its won and lost stages and its owners as reps. */
export interface PortalMapping {
  mapping: Mapping;
  stages: PipelineStage[];
  owners: OwnerMatch[];
  repOfOwner: (ownerId: string) => string;
  fallbackCurrency: string;
}

/** One deal of the CRM as Quotient reads it: the event it becomes, a deletion, or why it cannot be one. */
export type ReadDeal =
  | { kind: 'event'; externalId: string; body: JsonObject; event: DealEvent }
  | { kind: 'deleted'; externalId: string }
  | { kind: 'refused'; externalId: string; reason: string };

/**
 * HubSpot deals into Quotient: the connection's tokens (refreshed before they expire), the portal's mapping (the
 * `hubspot-api` import mapping with its pipelines' won and lost stages and its owners as reps), and the deals read
 * by that mapping applied through the deal-event batch, each with a dedup key of the deal's id and modification
 * time. A refusal of HubSpot's is recorded on the connection (its error, the deals to read again), never thrown
 * past the sync.
 */
export class HubSpotSync {
  readonly #db: Transactor;
  readonly #batch: DealEventBatch;
  readonly #secrets: SecretBox;
  readonly #endpoints: hubspot.HubSpotEndpoints;
  readonly #now: () => Date;
  readonly #patience: Omit<hubspot.RateControl, 'onDailyRemaining'>;
  readonly #overlapMs: number;

  constructor(
    db: Transactor,
    batch: DealEventBatch,
    options: {
      secrets: SecretBox;
      endpoints: hubspot.HubSpotEndpoints;
      now?: () => Date;
      /** How a sync waits out HubSpot's 429s (the webhook path never waits: HubSpot retries it). */
      patience?: Omit<hubspot.RateControl, 'onDailyRemaining'>;
      /** How far before the previous poll's start a reconciliation poll searches. */
      reconcileOverlapMs?: number;
    },
  ) {
    this.#db = db;
    this.#batch = batch;
    this.#secrets = options.secrets;
    this.#endpoints = options.endpoints;
    this.#now = options.now ?? (() => new Date());
    this.#patience = options.patience ?? { retries: 5, maxWaitMs: 10_000 };
    this.#overlapMs = options.reconcileOverlapMs ?? 5 * 60_000;
  }

  /**
   * The endpoints as one piece of work calls them: a sync's waits out 429s, a webhook's does not; both note the
   * daily limit's remaining calls, stored on the connection by `told` once the work ends.
   */
  #metered(patient: boolean): {
    endpoints: hubspot.HubSpotEndpoints;
    told: (orgId: string, id: string) => Promise<void>;
  } {
    let remaining: number | undefined;
    const rate: hubspot.RateControl = {
      ...(patient ? this.#patience : { ...this.#patience, retries: 0 }),
      onDailyRemaining: (value) => {
        remaining = value;
      },
    };
    return {
      endpoints: { ...this.#endpoints, rate },
      told: async (orgId, id) => {
        if (remaining !== undefined) await connections.recordDailyRemaining(this.#db.statements, orgId, id, remaining);
      },
    };
  }

  get endpoints(): hubspot.HubSpotEndpoints {
    return this.#endpoints;
  }

  appOf(connection: connections.ConnectionCredentials): hubspot.HubSpotApp {
    if (connection.client_secret === null || connection.redirect_uri === null) {
      throw new Refusal('invalid_state', `connection ${connection.id} has no client secret or redirect URL`);
    }
    return {
      clientId: connection.client_id,
      clientSecret: this.#secrets.open(
        connection.client_secret,
        sealedBinding(connection.org_id, connection.id, 'client_secret'),
      ),
      redirectUri: connection.redirect_uri,
    };
  }

  seal(orgId: string, connectionId: string, field: string, value: string): string {
    return this.#secrets.seal(value, sealedBinding(orgId, connectionId, field));
  }

  /** The connection's access token, refreshed first (and stored sealed) when it expires within the margin. */
  async accessToken(
    connection: connections.ConnectionCredentials,
    endpoints: hubspot.HubSpotEndpoints = this.#endpoints,
  ): Promise<string> {
    const { org_id: orgId, id } = connection;
    if (!connection.access_token || !connection.refresh_token) {
      throw new Refusal('invalid_state', `connection ${id} is not authorized yet: authorize it first`);
    }
    const expiresAt = connection.token_expires_at?.getTime() ?? 0;
    if (expiresAt - this.#now().getTime() > REFRESH_MARGIN_MS) {
      return this.#secrets.open(connection.access_token, sealedBinding(orgId, id, 'access_token'));
    }
    const refreshToken = this.#secrets.open(connection.refresh_token, sealedBinding(orgId, id, 'refresh_token'));
    const tokens = await hubspot.refreshTokens(endpoints, this.appOf(connection), refreshToken, this.#now());
    await connections.storeTokens(this.#db.statements, orgId, id, {
      accessToken: this.seal(orgId, id, 'access_token', tokens.accessToken),
      refreshToken: this.seal(orgId, id, 'refresh_token', tokens.refreshToken),
      expiresAt: tokens.expiresAt,
    });
    connection.access_token = this.seal(orgId, id, 'access_token', tokens.accessToken);
    connection.refresh_token = this.seal(orgId, id, 'refresh_token', tokens.refreshToken);
    connection.token_expires_at = tokens.expiresAt;
    return tokens.accessToken;
  }

  /** The portal's mapping, from its pipelines and owners and the org's reps. */
  async portalMapping(
    orgId: string,
    token: string,
    endpoints: hubspot.HubSpotEndpoints = this.#endpoints,
  ): Promise<PortalMapping> {
    const [stages, owners] = await Promise.all([
      hubspot.pipelineStages(endpoints, token),
      hubspot.owners(endpoints, token),
    ]);
    const candidates = owners.flatMap((owner) => [
      owner.id,
      ...(owner.email ? [owner.email, owner.email.toLowerCase()] : []),
    ]);
    const existing = await users.idsByExternalIds(this.#db.statements, orgId, [...new Set(candidates)]);
    const matched = matchOwners(owners, new Set(existing.keys()));
    const reps = new Map(matched.map((match) => [match.owner_id, match.rep_external_id]));
    const fallbackCurrency = await orgs.defaultCurrency(this.#db.statements, orgId);
    if (fallbackCurrency === null) throw new Refusal('not_found', `no org ${orgId}`);
    return {
      mapping: portalMapping(stages),
      stages,
      owners: matched,
      repOfOwner: (ownerId) => reps.get(ownerId) ?? ownerId,
      fallbackCurrency,
    };
  }

  /** A deal read by the portal's mapping: its event (with the version's dedup key), a deletion, or a refusal. */
  read(portal: PortalMapping, portalId: string, deal: HubSpotDeal): ReadDeal {
    const { header, cells } = dealRecord(deal, portal.repOfOwner);
    try {
      const mapped = new RowMapper(portal.mapping, header).map(cells, {
        conventions: portal.mapping.conventions ?? { source: "HubSpot's API values" },
        fallbackCurrency: portal.fallbackCurrency,
      });
      if (mapped.kind === 'deleted') return { kind: 'deleted', externalId: deal.id };
      const body = { ...mapped.body, dedup_key: versionKey(portalId, deal.id, deal.properties.hs_lastmodifieddate) };
      return { kind: 'event', externalId: deal.id, body, event: parseDealEvent(body) };
    } catch (error) {
      if (error instanceof RefusedRow || error instanceof Refusal) {
        return { kind: 'refused', externalId: deal.id, reason: error.message };
      }
      throw error;
    }
  }

  /** The mapping on the portal's first deals; nothing is written. */
  async preview(connection: connections.ConnectionCredentials, limit: number): Promise<ConnectionPreview> {
    const token = await this.accessToken(connection);
    const portal = await this.portalMapping(connection.org_id, token);
    const page = await hubspot.dealsPage(this.#endpoints, token, {
      after: undefined,
      properties: dealProperties(portal.mapping),
      archived: false,
    });
    const won = new Set(portal.mapping.won_stages);
    const lost = new Set(portal.mapping.lost_stages);
    const stage = (found: PipelineStage) => ({ pipeline: found.pipeline, stage_id: found.stageId, label: found.label });
    return {
      mapping: {
        name: portal.mapping.name,
        won_stages: portal.stages.filter((found) => won.has(found.stageId)).map(stage),
        lost_stages: portal.stages.filter((found) => lost.has(found.stageId)).map(stage),
        owners: portal.owners,
        custom: Object.fromEntries(
          Object.entries(portal.mapping.custom).map(([field, spec]) => [
            field,
            typeof spec.column === 'string' ? spec.column : spec.column.join(' or '),
          ]),
        ),
      },
      records: page.deals.slice(0, limit).map((deal) => this.read(portal, connection.account_id ?? '', deal)),
    };
  }

  /**
   * Reads every deal of the portal, live and archived, and applies them a page at a time: the first sync. A re-sync
   * from a time (`sync_from`) searches the live deals modified since (`hs_lastmodifieddate` GTE, HubSpot's search)
   * instead of paging every one, then pages the archived ones. Archived deals the org has become deleted deals. When
   * `stopped` (the process closes), it ends after the page it applied; the connection stays `syncing`, and the next
   * holder of its lease runs it again (what was applied changes nothing twice). A 429 is waited out by its
   * `Retry-After`; one that outlasts the waits leaves the connection `syncing` with HubSpot's error, resumed the same
   * way: a rate limit never stops a sync `failing`.
   */
  async backfill(orgId: string, connectionId: string, stopped: () => boolean): Promise<void> {
    const connection = await connections.findCredentials(this.#db.statements, orgId, connectionId);
    if (!connection?.account_id) return;
    const portalId = connection.account_id;
    const { endpoints, told } = this.#metered(true);
    try {
      const token = await this.accessToken(connection, endpoints);
      const portal = await this.portalMapping(orgId, token, endpoints);
      const properties = dealProperties(portal.mapping);
      const since = connection.sync_from;
      const problems: string[] = [];
      let lastChange: Date | null = null;
      const take = async (deals: readonly HubSpotDeal[]) => {
        const applied = await this.apply(orgId, portalId, portal, deals, []);
        problems.push(...applied.problems);
        lastChange = latest(lastChange, applied.lastChange);
      };
      let cut = false;
      if (since !== null) {
        await hubspot.searchModifiedSince(
          endpoints,
          () => this.accessToken(connection, endpoints),
          { since, properties },
          async (deals) => {
            await take(deals);
            cut = stopped();
            return !cut;
          },
        );
        if (cut) return;
      }
      for (const archived of since === null ? [false, true] : [true]) {
        let after: string | undefined;
        do {
          const page = await hubspot.dealsPage(endpoints, await this.accessToken(connection, endpoints), {
            after,
            properties,
            archived,
          });
          await take(page.deals.filter((deal) => since === null || modifiedAt(deal) >= since.getTime()));
          after = page.after;
          if (stopped()) return;
        } while (after !== undefined);
      }
      await connections.recordSuccess(this.#db.statements, orgId, connectionId, {
        appliedIds: [],
        lastChangeAt: lastChange,
        synced: true,
      });
      await this.reportProblems(orgId, connectionId, problems);
    } catch (error) {
      if (!(error instanceof hubspot.CrmRefusal)) throw error;
      if (error.status === 429) {
        // HubSpot's limit outlasted the waits: still `syncing`, shown with HubSpot's answer, resumed by its lease.
        await connections.recordProblem(this.#db.statements, orgId, connectionId, error.message);
      } else {
        await connections.recordFailure(this.#db.statements, orgId, connectionId, error.message, []);
      }
    } finally {
      await told(orgId, connectionId);
    }
  }

  /**
   * The reconciliation poll: the live deals HubSpot modified since the previous poll began (the first time, since
   * the newest change seen), less the overlap, searched by `hs_lastmodifieddate` and applied through the same
   * pipeline and dedup keys as the webhooks', so a version a webhook applied changes nothing and only what the
   * webhooks missed is applied: those are the repairs, recorded on the connection with their ids. A refusal leaves
   * the next poll to search from the same time.
   */
  async reconcile(orgId: string, connectionId: string, stopped: () => boolean): Promise<void> {
    const connection = await connections.findCredentials(this.#db.statements, orgId, connectionId);
    if (!connection?.account_id || connection.status === 'paused' || connection.status === 'syncing') return;
    const portalId = connection.account_id;
    const { endpoints, told } = this.#metered(true);
    const started = this.#now();
    const previous = await connections.reconcileFrom(this.#db.statements, orgId, connectionId);
    const base = previous ?? connection.last_change_at ?? connection.last_sync_at ?? started;
    const from = new Date(base.getTime() - this.#overlapMs);
    try {
      const token = await this.accessToken(connection, endpoints);
      const portal = await this.portalMapping(orgId, token, endpoints);
      const problems: string[] = [];
      const repaired: string[] = [];
      let read = 0;
      let lastChange: Date | null = null;
      let cut = false;
      await hubspot.searchModifiedSince(
        endpoints,
        () => this.accessToken(connection, endpoints),
        { since: from, properties: dealProperties(portal.mapping) },
        async (deals) => {
          const applied = await this.apply(orgId, portalId, portal, deals, []);
          read += deals.length;
          repaired.push(...applied.acceptedIds);
          problems.push(...applied.problems);
          lastChange = latest(lastChange, applied.lastChange);
          cut = stopped();
          return !cut;
        },
      );
      if (cut) return;
      await connections.recordReconciliation(this.#db.statements, orgId, connectionId, {
        from,
        nextFrom: started,
        read,
        repaired: repaired.length,
        repairedIds: repaired,
      });
      await connections.recordSuccess(this.#db.statements, orgId, connectionId, {
        appliedIds: [],
        lastChangeAt: lastChange,
        synced: false,
      });
      await this.reportProblems(orgId, connectionId, problems);
    } catch (error) {
      if (!(error instanceof hubspot.CrmRefusal)) throw error;
      if (error.status === 429)
        await connections.recordProblem(this.#db.statements, orgId, connectionId, error.message);
      else await connections.recordFailure(this.#db.statements, orgId, connectionId, error.message, []);
    } finally {
      await told(orgId, connectionId);
    }
  }

  /**
   * The deals a webhook (or a resume) names, read again from HubSpot in batches and applied; deletions become
   * deleted deals. A refusal of HubSpot's keeps the deals pending, to be read again.
   */
  async applyAnnounced(
    connection: connections.ConnectionCredentials,
    announced: readonly DealChangeEvent[],
  ): Promise<{ applied: number; problems: string[] }> {
    const { org_id: orgId, id } = connection;
    const portalId = connection.account_id ?? '';
    const deletions = announced.filter((event) => event.kind === 'deletion');
    const deleted = new Set(deletions.map((event) => event.dealId));
    const changed = [
      ...new Set(announced.filter((event) => event.kind === 'change').map((event) => event.dealId)),
    ].filter((dealId) => !deleted.has(dealId));
    const { endpoints, told } = this.#metered(false);
    try {
      const token = await this.accessToken(connection, endpoints);
      const portal = await this.portalMapping(orgId, token, endpoints);
      const read =
        changed.length === 0 ? [] : await hubspot.readDeals(endpoints, token, changed, dealProperties(portal.mapping));
      const outcome = await this.apply(orgId, portalId, portal, read, deletions);
      await connections.recordSuccess(this.#db.statements, orgId, id, {
        appliedIds: announced.map(pendingEntry),
        lastChangeAt: outcome.lastChange,
        synced: false,
      });
      await this.reportProblems(orgId, id, outcome.problems);
      return { applied: outcome.applied, problems: outcome.problems };
    } catch (error) {
      if (!(error instanceof hubspot.CrmRefusal)) throw error;
      await connections.recordFailure(this.#db.statements, orgId, id, error.message, announced.map(pendingEntry));
      throw error;
    } finally {
      await told(orgId, id);
    }
  }

  /** The deals' events (and the deletions') through the deal-event batch, earnings evaluated in its transaction. */
  private async apply(
    orgId: string,
    portalId: string,
    portal: PortalMapping,
    found: readonly HubSpotDeal[],
    deletions: readonly DealChangeEvent[],
  ): Promise<{ applied: number; acceptedIds: string[]; problems: string[]; lastChange: Date | null }> {
    const events: BatchEvent[] = [];
    const problems: string[] = [];
    const archived: string[] = [];
    let lastChange: Date | null = null;
    for (const deal of found) {
      const read = this.read(portal, portalId, deal);
      const at = modifiedAt(deal);
      if (!Number.isNaN(at)) lastChange = latest(lastChange, new Date(at));
      if (read.kind === 'event') events.push({ event: read.event, body: read.body });
      else if (read.kind === 'deleted') archived.push(read.externalId);
      else problems.push(`HubSpot deal ${read.externalId}: ${read.reason}`);
    }
    // An archived deal becomes a deleted deal only where the org has it; a deletion event names one it had.
    const present =
      archived.length === 0
        ? new Set<string>()
        : await dealsBulk.externalIdsPresent(this.#db.statements, orgId, archived);
    const deletionsOf = [
      ...[...present].map((dealId) => ({ dealId, occurredAt: undefined as number | undefined })),
      ...deletions.map((event) => ({ dealId: event.dealId, occurredAt: event.occurredAt || undefined })),
    ];
    for (const { dealId, occurredAt } of deletionsOf) {
      const body: JsonObject = {
        external_id: dealId,
        event_type: 'delete',
        state: {},
        dedup_key: deletionKey(portalId, dealId),
        ...(occurredAt ? { occurred_at: new Date(occurredAt).toISOString() } : {}),
      };
      events.push({ event: parseDealEvent(body), body });
    }
    if (events.length === 0) return { applied: 0, acceptedIds: [], problems, lastChange };
    const results = await this.#batch.ingestAll({ orgId, keyId: null, events, receivedAt: this.#now() });
    const acceptedIds = results.flatMap((result, index) =>
      result.kind === 'accepted' ? [events[index]?.event.externalId ?? ''] : [],
    );
    return { applied: acceptedIds.length, acceptedIds, problems, lastChange };
  }

  /** Records the CRM sent that could not become deal events: named on the connection, with their ids. */
  private async reportProblems(orgId: string, connectionId: string, problems: readonly string[]): Promise<void> {
    if (problems.length === 0) return;
    const shown = problems.slice(0, 5).join('; ');
    await connections.recordProblem(
      this.#db.statements,
      orgId,
      connectionId,
      problems.length > 5 ? `${shown}; and ${problems.length - 5} more` : shown,
    );
  }
}

function modifiedAt(deal: HubSpotDeal): number {
  const value = deal.properties.hs_lastmodifieddate;
  return value ? Date.parse(value) : Number.NaN;
}

function latest(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.getTime() >= b.getTime() ? a : b;
}
