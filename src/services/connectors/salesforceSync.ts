import { matchOwners, type OwnerMatch } from '../../domain/connectors/owners.ts';
import { reconcile } from '../../domain/connectors/reconciliation.ts';
import {
  deletionKey,
  instantOf,
  newestModstamp,
  type OpportunityRecord,
  type OpportunityStage,
  opportunitiesByIdQuery,
  opportunitiesChangedAfterQuery,
  opportunitiesQuery,
  opportunityCells,
  opportunityFields,
  orgMapping,
  type SplitRecord,
  splitsChangedAfterQuery,
  splitsOf,
  versionKey,
} from '../../domain/connectors/salesforce.ts';
import { parseDealEvent } from '../../domain/deals/event.ts';
import type { Mapping } from '../../domain/imports/mapping.ts';
import { RefusedRow, RowMapper } from '../../domain/imports/recordMapper.ts';
import type { JsonObject } from '../../domain/json.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { SecretBox } from '../../lib/secretBox.ts';
import * as connections from '../../repositories/connections.ts';
import * as deals from '../../repositories/deals.ts';
import * as dealsBulk from '../../repositories/dealsBulk.ts';
import * as orgs from '../../repositories/orgs.ts';
import type { Transactor } from '../../repositories/transaction.ts';
import * as users from '../../repositories/users.ts';
import type { BatchEvent, DealEventBatch } from '../dealEventBatch.ts';
import type { ConnectionPreview } from './connectionAdmin.ts';
import { CrmRefusal } from './crmRefusal.ts';
import { REFRESH_MARGIN_MS, type ReadDeal, sealedBinding } from './hubspotSync.ts';
import * as salesforce from './salesforceApi.ts';

/** The Salesforce org as the mapping reads it: its stages, its users as reps, the fields its Opportunity has. */
export interface OrgReading {
  mapping: Mapping;
  stages: OpportunityStage[];
  owners: OwnerMatch[];
  repOfOwner: (userId: string) => string;
  fallbackCurrency: string;
  /** The Salesforce org's corporate currency: a record's currency where it has no `CurrencyIsoCode`. */
  corporateCurrency: string | null;
  fields: string[];
  /** The revenue split type whose `OpportunitySplit`s are a deal's splits; null: the org has no splits. */
  splitTypeId: string | null;
}

/**
 * How far before the newest `SystemModstamp` read the reconciliation poll reads again: Salesforce stamps a record
 * when its transaction writes it, not when it commits, so a long transaction's record can appear with an older
 * stamp than one read before it.
 */
export const RECONCILE_OVERLAP_MS = 5 * 60 * 1000;

/** What a reconciliation poll did: records it repaired, and the newest `SystemModstamp` it read. */
export interface Reconciliation {
  /** The change time it read after (less the overlap); null when nothing was read before it. */
  from: Date | null;
  read: number;
  repaired: number;
  /** The repaired Opportunities' ids. */
  repairedIds: string[];
  /** The newest change time it read: where the next poll starts. */
  reconciledTo: Date | null;
}

/** The first wait before a sync tries Salesforce again when it could not reach it; doubled per try, up to 30 s. */
const UNREACHABLE_RETRY_MS = 250;

/** Tries of a sync that cannot reach Salesforce before the connection shows `failing` with it. */
const UNREACHABLE_TRIES = 10;

/**
 * Salesforce Opportunities into Quotient: the connection's session (the web-server flow's refresh token, or a new
 * JWT bearer assertion, before it expires and on a 401), the org's mapping (the `salesforce-api` import mapping with
 * its OpportunityStage metadata, its users as reps, `CurrencyIsoCode` where the org has several currencies), and
 * the records read by SOQL (`queryAll`, paged by `nextRecordsUrl`) applied through the deal-event batch, each with a
 * dedup key of its id and `SystemModstamp`. A refusal of Salesforce's is recorded on the connection.
 */
export class SalesforceSync {
  readonly #db: Transactor;
  readonly #batch: DealEventBatch;
  readonly #secrets: SecretBox;
  readonly #now: () => Date;
  /** Where connections sign in unless they name their own login URL (a sandbox, a My Domain). */
  readonly defaultLoginUrl: string;

  constructor(
    db: Transactor,
    batch: DealEventBatch,
    options: { secrets: SecretBox; loginUrl: string; now?: () => Date },
  ) {
    this.#db = db;
    this.#batch = batch;
    this.#secrets = options.secrets;
    this.defaultLoginUrl = options.loginUrl;
    this.#now = options.now ?? (() => new Date());
  }

  #open(connection: connections.ConnectionCredentials, field: string, sealed: string | null): string {
    if (sealed === null) throw new Refusal('invalid_state', `connection ${connection.id} has no ${field}`);
    return this.#secrets.open(sealed, sealedBinding(connection.org_id, connection.id, field));
  }

  appOf(connection: connections.ConnectionCredentials): salesforce.SalesforceApp {
    return {
      loginUrl: connection.login_url ?? this.defaultLoginUrl,
      clientId: connection.client_id,
      clientSecret: this.#open(connection, 'client_secret', connection.client_secret),
      redirectUri: connection.redirect_uri ?? '',
    };
  }

  jwtOf(connection: connections.ConnectionCredentials): salesforce.JwtBearer {
    return {
      loginUrl: connection.login_url ?? this.defaultLoginUrl,
      clientId: connection.client_id,
      username: connection.jwt_username ?? '',
      privateKey: this.#open(connection, 'private_key', connection.private_key),
    };
  }

  /** New tokens: the refresh token's, or a new JWT bearer assertion's; stored sealed on the connection. */
  async #renew(connection: connections.ConnectionCredentials): Promise<string> {
    const { org_id: orgId, id } = connection;
    const tokens =
      connection.jwt_username !== null
        ? await salesforce.jwtGrant(this.jwtOf(connection), this.#now())
        : await salesforce.refreshTokens(
            this.appOf(connection),
            this.#open(connection, 'refresh_token', connection.refresh_token),
            this.#now(),
          );
    const accessToken = this.#secrets.seal(tokens.accessToken, sealedBinding(orgId, id, 'access_token'));
    const refreshToken =
      tokens.refreshToken === null
        ? null
        : this.#secrets.seal(tokens.refreshToken, sealedBinding(orgId, id, 'refresh_token'));
    await connections.storeTokens(this.#db.statements, orgId, id, {
      accessToken,
      refreshToken,
      expiresAt: tokens.expiresAt,
      instanceUrl: tokens.instanceUrl,
    });
    Object.assign(connection, {
      access_token: accessToken,
      refresh_token: refreshToken,
      token_expires_at: tokens.expiresAt,
      instance_url: tokens.instanceUrl,
    });
    return tokens.accessToken;
  }

  /**
   * Whether this process can open the connection's sealed credentials (it has the key they were sealed with): a
   * process without it leaves the connection to the processes that have it, and the connection's state is not its.
   */
  opens(connection: connections.ConnectionCredentials): boolean {
    const sealed: Array<[string, string | null]> =
      connection.jwt_username !== null
        ? [['private_key', connection.private_key]]
        : [
            ['client_secret', connection.client_secret],
            ['refresh_token', connection.refresh_token],
          ];
    sealed.push(['access_token', connection.access_token]);
    try {
      for (const [field, value] of sealed) if (value !== null) this.#open(connection, field, value);
      return true;
    } catch {
      return false;
    }
  }

  /** A new session now (Salesforce refused the one in hand), the same renewal as the REST client's on a 401. */
  renew(connection: connections.ConnectionCredentials): Promise<string> {
    return this.#renew(connection);
  }

  /** The connection's access token, renewed first when it expires within the margin. */
  async accessToken(connection: connections.ConnectionCredentials): Promise<string> {
    if (!connection.access_token || !connection.instance_url) {
      throw new Refusal('invalid_state', `connection ${connection.id} is not authorized yet: authorize it first`);
    }
    const expiresAt = connection.token_expires_at?.getTime() ?? 0;
    return expiresAt - this.#now().getTime() > REFRESH_MARGIN_MS
      ? this.#open(connection, 'access_token', connection.access_token)
      : await this.#renew(connection);
  }

  /** The org's REST API, its session renewed first when it expires within the margin. */
  async client(connection: connections.ConnectionCredentials): Promise<salesforce.SalesforceClient> {
    const token = await this.accessToken(connection);
    return new salesforce.SalesforceClient(connection.instance_url ?? '', token, () => this.#renew(connection));
  }

  /** The org's mapping, from its stages, its users, its Opportunity's fields and the Quotient org's reps. */
  async orgReading(orgId: string, client: salesforce.SalesforceClient): Promise<OrgReading> {
    const [stages, owners, described, corporate, splitTypeId] = await Promise.all([
      client.stages(),
      client.users(),
      client.fieldsOf('Opportunity'),
      client.corporateCurrency(),
      client.revenueSplitType(),
    ]);
    const candidates = owners.flatMap((owner) => [
      owner.id,
      ...(owner.email ? [owner.email, owner.email.toLowerCase()] : []),
    ]);
    const existing = await users.idsByExternalIds(this.#db.statements, orgId, [...new Set(candidates)]);
    const matched = matchOwners(owners, new Set(existing.keys()));
    const reps = new Map(matched.map((match) => [match.owner_id, match.rep_external_id]));
    const orgCurrency = await orgs.defaultCurrency(this.#db.statements, orgId);
    if (orgCurrency === null) throw new Refusal('not_found', `no org ${orgId}`);
    const mapping = orgMapping(stages);
    return {
      mapping,
      stages,
      owners: matched,
      repOfOwner: (userId) => reps.get(userId) ?? userId,
      fallbackCurrency: orgCurrency,
      corporateCurrency: corporate,
      fields: opportunityFields(mapping, described),
      splitTypeId,
    };
  }

  /**
   * A record read by the org's mapping: its event (with its version's dedup key), a deletion, or a refusal. With
   * its revenue splits (an org with Opportunity Splits), the event carries them as `splits`, its dedup key names
   * the newest split's `SystemModstamp` too, and it is in force at the later of the record's and the splits' change.
   */
  read(reading: OrgReading, sfOrgId: string, record: OpportunityRecord, splits?: readonly SplitRecord[]): ReadDeal {
    const { header, cells } = opportunityCells(record, reading.repOfOwner);
    try {
      const mapped = new RowMapper(reading.mapping, header).map(cells, {
        conventions: reading.mapping.conventions ?? { source: "Salesforce's API values" },
        fallbackCurrency: reading.fallbackCurrency,
        ...(reading.corporateCurrency === null ? {} : { currency: reading.corporateCurrency }),
      });
      if (mapped.kind === 'deleted') return { kind: 'deleted', externalId: record.Id };
      const body: JsonObject = { ...mapped.body, dedup_key: versionKey(sfOrgId, record.Id, record.SystemModstamp) };
      if (splits !== undefined) {
        body.splits = splitsOf(splits, record.OwnerId, reading.repOfOwner);
        const splitAt = newestModstamp(splits);
        if (!Number.isNaN(splitAt)) {
          body.dedup_key = `${String(body.dedup_key)}:splits:${splitAt}`;
          const at = typeof body.occurred_at === 'string' ? Date.parse(body.occurred_at) : Number.NaN;
          if (Number.isNaN(at) || splitAt > at) body.occurred_at = new Date(splitAt).toISOString();
        }
      }
      return { kind: 'event', externalId: record.Id, body, event: parseDealEvent(body) };
    } catch (error) {
      if (error instanceof RefusedRow || error instanceof Refusal) {
        return { kind: 'refused', externalId: record.Id, reason: error.message };
      }
      throw error;
    }
  }

  /** The mapping on the org's first Opportunities; nothing is written. */
  async preview(connection: connections.ConnectionCredentials, limit: number): Promise<ConnectionPreview> {
    const client = await this.client(connection);
    const reading = await this.orgReading(connection.org_id, client);
    const page = await client.page(`${opportunitiesQuery(reading.fields, null)} LIMIT ${limit}`, { all: false });
    const stage = (found: OpportunityStage) => ({
      pipeline: 'Opportunity',
      stage_id: found.ApiName,
      label: found.MasterLabel,
    });
    return {
      mapping: {
        name: reading.mapping.name,
        won_stages: reading.stages.filter((found) => found.IsWon).map(stage),
        lost_stages: reading.stages.filter((found) => found.IsClosed && !found.IsWon).map(stage),
        owners: reading.owners,
        custom: Object.fromEntries(
          Object.entries(reading.mapping.custom)
            .filter(([, spec]) => reading.fields.includes(String(spec.column)))
            .map(([field, spec]) => [field, String(spec.column)]),
        ),
      },
      records: page.records.map((record) => this.read(reading, connection.account_id ?? '', record)),
    };
  }

  /**
   * Reads every Opportunity of the org (or those changed since the connection's `sync_from`), deleted ones too,
   * oldest change first, and applies them a page at a time: the first sync, or a re-sync. When `stopped` (the
   * process closes), it ends after the page it applied; the connection stays `syncing`. Salesforce not reached at
   * all (DNS, a firewall, a network down: no answer of Salesforce's) is not the connection's fault: the sync tries
   * again with backoff (from 250 ms, doubled, up to 30 s), and only after `unreachableTries` tries (10, about a
   * minute and a half) is the connection `failing`, or, with `handBack`, the refusal thrown (the change subscriber
   * then hands its lease on).
   */
  async backfill(
    orgId: string,
    connectionId: string,
    stopped: () => boolean,
    options: { unreachableTries?: number; handBack?: boolean } = {},
  ): Promise<void> {
    const allowed = options.unreachableTries ?? UNREACHABLE_TRIES;
    for (let tries = 1; ; tries++) {
      try {
        await this.#backfillOnce(orgId, connectionId, stopped);
        return;
      } catch (error) {
        if (!(error instanceof CrmRefusal)) throw error;
        if (error.unreachable && tries >= allowed && options.handBack) throw error;
        if (!error.unreachable || tries >= allowed) {
          await connections.recordFailure(this.#db.statements, orgId, connectionId, error.message, []);
          return;
        }
        const wait = Math.min(30_000, UNREACHABLE_RETRY_MS * 2 ** Math.min(tries - 1, 10));
        for (const until = Date.now() + wait; Date.now() < until; ) {
          if (stopped()) return;
          await new Promise((resolve) => setTimeout(resolve, Math.min(250, until - Date.now())));
        }
        if (stopped()) return;
      }
    }
  }

  async #backfillOnce(orgId: string, connectionId: string, stopped: () => boolean): Promise<void> {
    const connection = await connections.findCredentials(this.#db.statements, orgId, connectionId);
    if (!connection?.account_id) return;
    const client = await this.client(connection);
    const reading = await this.orgReading(orgId, client);
    const problems: string[] = [];
    let lastChange: Date | null = null;
    let page = await client.page(opportunitiesQuery(reading.fields, connection.sync_from), { all: true });
    for (;;) {
      const applied = await this.apply(orgId, connection.account_id, reading, page.records, client);
      problems.push(...applied.problems);
      if (applied.lastChange && (lastChange === null || applied.lastChange > lastChange)) {
        lastChange = applied.lastChange;
      }
      if (page.next === undefined) break;
      if (stopped()) return;
      page = await client.next(page.next);
    }
    if (lastChange !== null)
      await connections.advanceReconcileFrom(this.#db.statements, orgId, connectionId, lastChange);
    await connections.recordSuccess(this.#db.statements, orgId, connectionId, {
      appliedIds: [],
      lastChangeAt: lastChange,
      synced: true,
    });
    await this.reportProblems(orgId, connectionId, problems);
  }

  /**
   * The reconciliation poll (docs/connectors.md, "Reconciliation"): the Opportunities Salesforce changed after the
   * newest `SystemModstamp` read before (less an overlap), and those whose revenue splits changed (CDC does not
   * carry `OpportunitySplit`), read over REST and applied through the deal-event batch, with the dedup keys of their
   * versions. A record whose change the deal has already (from the live channel), or a newer one, is not applied; the
   * others are the repairs. Run by the change subscriber's lease holder.
   */
  async reconcileChanges(
    orgId: string,
    connection: connections.ConnectionCredentials,
    client: salesforce.SalesforceClient,
  ): Promise<Reconciliation & { problems: string[] }> {
    const sfOrgId = connection.account_id ?? '';
    const reading = await this.orgReading(orgId, client);
    const after =
      connection.reconcile_next_from === null
        ? null
        : new Date(connection.reconcile_next_from.getTime() - RECONCILE_OVERLAP_MS);
    const records = await client.all(opportunitiesChangedAfterQuery(reading.fields, after), { all: true });
    let newest = newestModstamp(records);
    if (reading.splitTypeId !== null) {
      const changed = await client.all(splitsChangedAfterQuery(reading.splitTypeId, after));
      const splitAt = newestModstamp(changed);
      if (!Number.isNaN(splitAt) && !(splitAt <= newest)) newest = splitAt;
      const read = new Set(records.map((record) => record.Id));
      const more = [...new Set(changed.map((row) => String(row.OpportunityId)))].filter((id) => !read.has(id)).sort();
      for (let at = 0; at < more.length; at += 200) {
        records.push(
          ...(await client.all(opportunitiesByIdQuery(reading.fields, more.slice(at, at + 200)), { all: true })),
        );
      }
    }
    const applied = await this.apply(orgId, sfOrgId, reading, records, client, { reconciling: true });
    return {
      from: after,
      read: records.length,
      repaired: applied.repairedIds.length,
      repairedIds: applied.repairedIds,
      reconciledTo: Number.isNaN(newest) ? null : new Date(newest),
      problems: applied.problems,
    };
  }

  /**
   * The records' events through the deal-event batch, each with its revenue splits where the org has them; a deleted
   * record becomes a deleted deal where the org has it. `reconciling`: only what the deal does not have yet is applied
   * (`repaired` counts the records whose fields differed, a change of splits alone is not a repair).
   */
  async apply(
    orgId: string,
    sfOrgId: string,
    reading: OrgReading,
    records: readonly OpportunityRecord[],
    client: salesforce.SalesforceClient,
    options: { reconciling?: boolean } = {},
  ): Promise<{ problems: string[]; lastChange: Date | null; repairedIds: string[] }> {
    const events: BatchEvent[] = [];
    const problems: string[] = [];
    const deleted: string[] = [];
    let lastChange: number | null = null;
    const live = records.filter((record) => record.IsDeleted !== true).map((record) => record.Id);
    const splits =
      reading.splitTypeId === null || live.length === 0
        ? new Map<string, SplitRecord[]>()
        : await client.splitsOf(reading.splitTypeId, live);
    for (const record of records) {
      const at = instantOf(record.SystemModstamp);
      if (!Number.isNaN(at)) lastChange = Math.max(lastChange ?? at, at);
      const read = this.read(
        reading,
        sfOrgId,
        record,
        reading.splitTypeId === null ? undefined : (splits.get(record.Id) ?? []),
      );
      if (read.kind === 'event') events.push({ event: read.event, body: read.body });
      else if (read.kind === 'deleted') deleted.push(read.externalId);
      else problems.push(`Salesforce Opportunity ${read.externalId}: ${read.reason}`);
    }
    const present =
      deleted.length === 0
        ? new Set<string>()
        : await dealsBulk.externalIdsPresent(this.#db.statements, orgId, deleted);
    for (const recordId of present) {
      const body: JsonObject = {
        external_id: recordId,
        event_type: 'delete',
        state: {},
        dedup_key: deletionKey(sfOrgId, recordId),
      };
      events.push({ event: parseDealEvent(body), body });
    }
    const repairedIds: string[] = [];
    let applying = events;
    if (options.reconciling) {
      applying = [];
      for (const one of events) {
        const standing = await deals.findByExternalId(this.#db.statements, orgId, one.event.externalId);
        const outcome = reconcile(standing, one.event);
        if (outcome === 'repair') repairedIds.push(one.event.externalId);
        if (outcome === 'repair' || outcome === 'splits') applying.push(one);
      }
    }
    if (applying.length > 0) {
      await this.#batch.ingestAll({ orgId, keyId: null, events: applying, receivedAt: this.#now() });
    }
    return { problems, lastChange: lastChange === null ? null : new Date(lastChange), repairedIds };
  }

  async reportProblems(orgId: string, connectionId: string, problems: readonly string[]): Promise<void> {
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
