import { randomBytes } from 'node:crypto';
import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../../audit/adminEntries.ts';
import { type DealChangeEvent, pendingEntry, pendingEvents } from '../../domain/connectors/hubspot.ts';
import { Refusal } from '../../domain/refusal.ts';
import { MissingSecretKey } from '../../lib/secretBox.ts';
import * as audit from '../../repositories/audit.ts';
import * as connections from '../../repositories/connections.ts';
import * as orgs from '../../repositories/orgs.ts';
import type { Transaction, Transactor } from '../../repositories/transaction.ts';
import { digest, parseUrl } from './connectionInput.ts';
import { CrmRefusal } from './crmRefusal.ts';
import * as hubspot from './hubspotApi.ts';
import type { HubSpotPoller } from './hubspotPoll.ts';
import type { HubSpotSync, ReadDeal } from './hubspotSync.ts';
import * as salesforce from './salesforceApi.ts';
import type { SalesforceCdc, SubscriberLog } from './salesforceCdc.ts';
import type { SalesforceSync } from './salesforceSync.ts';

/** A new connection's app: the OAuth app (client secret, redirect), or Salesforce's JWT bearer flow. */
export interface NewConnection {
  kind: connections.ConnectionKind;
  clientId: string;
  clientSecret?: string | undefined;
  redirectUri?: string | undefined;
  loginUrl?: string | undefined;
  jwt?: { username: string; privateKey: string } | undefined;
}

export interface ConnectionPreview {
  mapping: {
    name: string;
    won_stages: Array<{ pipeline: string; stage_id: string; label: string }>;
    lost_stages: Array<{ pipeline: string; stage_id: string; label: string }>;
    owners: Array<{
      owner_id: string;
      email: string | null;
      rep_external_id: string;
      matched_by: 'owner_id' | 'email' | 'new';
    }>;
    custom: Record<string, string>;
  };
  records: ReadDeal[];
}

/**
 * The org's CRM connections (docs/connectors.md): added with the CRM app's client id and secret (sealed), authorized
 * by OAuth (the state is kept only as its SHA-256, for one code exchange), synced in the background, paused, resumed,
 * re-synced from a time and removed (the deals stay). Every change is audited. The background syncs end with the
 * process: `close` waits for those running.
 */
export class ConnectionAdmin {
  readonly #db: Transactor;
  readonly #hubspot: HubSpotSync;
  readonly #salesforce: SalesforceSync;
  /** The background sync of each connection, chained so one connection syncs once at a time. */
  readonly #running = new Map<string, Promise<void>>();
  #closing = false;
  /** Salesforce's change subscribers, where Change Data Capture is on. */
  readonly #cdc: SalesforceCdc | undefined;
  /** HubSpot's syncs and reconciliation polls under each connection's lease (src/services/connectors/hubspotPoll.ts). */
  readonly #poller: HubSpotPoller | undefined;

  constructor(
    db: Transactor,
    syncs: {
      hubspot: HubSpotSync;
      salesforce: SalesforceSync;
      cdc?: SalesforceCdc | undefined;
      poller?: HubSpotPoller | undefined;
    },
  ) {
    this.#db = db;
    this.#hubspot = syncs.hubspot;
    this.#salesforce = syncs.salesforce;
    this.#cdc = syncs.cdc;
    this.#poller = syncs.poller;
  }

  list(orgId: string): Promise<connections.ConnectionRecord[]> {
    return connections.listForOrg(this.#db.statements, orgId);
  }

  async get(orgId: string, id: string): Promise<connections.ConnectionRecord> {
    const found = await connections.find(this.#db.statements, orgId, id);
    if (!found) throw new Refusal('not_found', `no connection ${id}`);
    return found;
  }

  async create(
    orgId: string,
    input: NewConnection,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<connections.ConnectionRecord> {
    if (!(await orgs.find(this.#db.statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
    if (input.kind === 'hubspot' && (input.loginUrl !== undefined || input.jwt !== undefined)) {
      throw new Refusal('invalid_body', 'login_url and jwt are for Salesforce connections only');
    }
    if (input.jwt !== undefined) return this.#createJwt(orgId, input, input.jwt, actor);
    if (input.clientSecret === undefined || input.redirectUri === undefined) {
      throw new Refusal('invalid_body', 'client_secret and redirect_uri are required (but for Salesforce with jwt)');
    }
    const clientSecret = input.clientSecret;
    const redirectUri = parseUrl('redirect_uri', input.redirectUri);
    const loginUrl = input.loginUrl === undefined ? null : parseUrl('login_url', input.loginUrl);
    return this.#db.run(async (tx) => {
      const created = await connections.insert(tx, {
        orgId,
        kind: input.kind,
        clientId: input.clientId.trim(),
        redirectUri,
        loginUrl,
        sealSecret: (id) => this.#seal(orgId, id, 'client_secret', clientSecret),
      });
      await this.#audit(tx, orgId, 'connection.created', { connection_id: created.id, kind: created.kind }, actor);
      return created;
    });
  }

  /**
   * Salesforce's JWT bearer flow: the token is asked for before anything is stored, so a key or user Salesforce
   * refuses leaves nothing behind; then the connection is stored authorized and its first sync starts.
   */
  async #createJwt(
    orgId: string,
    input: NewConnection,
    jwt: { username: string; privateKey: string },
    actor: AdminActor,
  ): Promise<connections.ConnectionRecord> {
    const loginUrl = parseUrl('login_url', input.loginUrl ?? this.#salesforce.defaultLoginUrl);
    const party = {
      loginUrl,
      clientId: input.clientId.trim(),
      username: jwt.username.trim(),
      privateKey: jwt.privateKey,
    };
    // The secret key must be there before Salesforce is called: the tokens could not be kept without it.
    this.#seal(orgId, 'con_check', 'private_key', '');
    let tokens: salesforce.SalesforceTokens;
    try {
      tokens = await salesforce.jwtGrant(party, new Date());
    } catch (error) {
      if (error instanceof CrmRefusal) throw new Refusal('invalid_state', error.message);
      throw error;
    }
    const created = await this.#db.run(async (tx) => {
      const inserted = await connections.insert(tx, {
        orgId,
        kind: 'salesforce',
        clientId: party.clientId,
        redirectUri: null,
        loginUrl: input.loginUrl === undefined ? null : loginUrl,
        sealSecret: () => null,
        jwt: { username: party.username, sealKey: (id) => this.#seal(orgId, id, 'private_key', jwt.privateKey) },
      });
      const { id } = inserted;
      const authorized = await connections.authorize(tx, orgId, id, {
        accountId: tokens.orgId,
        accessToken: this.#seal(orgId, id, 'access_token', tokens.accessToken),
        refreshToken: null,
        expiresAt: tokens.expiresAt,
        instanceUrl: tokens.instanceUrl,
      });
      await this.#audit(tx, orgId, 'connection.created', { connection_id: id, kind: 'salesforce' }, actor);
      await this.#audit(tx, orgId, 'connection.authorized', { connection_id: id, account_id: tokens.orgId }, actor);
      return authorized ?? inserted;
    });
    this.#startSync(created);
    return created;
  }

  /** The CRM's authorization URL with a fresh state; an earlier state of the connection stops working. */
  async authorize(
    orgId: string,
    id: string,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ authorizeUrl: string; state: string }> {
    const connection = await this.#credentials(orgId, id);
    if (connection.jwt_username !== null) {
      throw new Refusal('invalid_state', `connection ${id} uses the JWT bearer flow: it needs no authorization`);
    }
    const state = randomBytes(24).toString('base64url');
    await this.#db.run(async (tx) => {
      await connections.startAuthorization(tx, orgId, id, digest(state));
      await this.#audit(tx, orgId, 'connection.authorization_started', { connection_id: id }, actor);
    });
    const authorizeUrl =
      connection.kind === 'salesforce'
        ? salesforce.authorizationUrl(this.#salesforce.appOf(connection), state)
        : hubspot.authorizationUrl(this.#hubspot.endpoints, this.#hubspot.appOf(connection), state);
    return { authorizeUrl, state };
  }

  /** The code exchanged for tokens, the portal read, and the first sync started in the background. */
  async completeAuthorization(
    orgId: string,
    input: { code: string; state: string },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<connections.ConnectionRecord> {
    const connection = await connections.findByState(this.#db.statements, orgId, digest(input.state));
    if (!connection)
      throw new Refusal('invalid_body', 'state: not an authorization this org started, or one used already');
    const { id } = connection;
    let tokens: { accessToken: string; refreshToken: string | null; expiresAt: Date; instanceUrl?: string };
    let accountId: string;
    try {
      if (connection.kind === 'salesforce') {
        const granted = await salesforce.exchangeCode(this.#salesforce.appOf(connection), input.code, new Date());
        tokens = granted;
        accountId = granted.orgId;
      } else {
        const app = this.#hubspot.appOf(connection);
        tokens = await hubspot.exchangeCode(this.#hubspot.endpoints, app, input.code, new Date());
        accountId = await hubspot.portalOf(this.#hubspot.endpoints, tokens.accessToken);
      }
    } catch (error) {
      if (error instanceof CrmRefusal) throw new Refusal('invalid_state', error.message);
      throw error;
    }
    const refreshToken = tokens.refreshToken;
    const authorized = await this.#db.run(async (tx) => {
      const updated = await connections.authorize(tx, orgId, id, {
        accountId,
        accessToken: this.#seal(orgId, id, 'access_token', tokens.accessToken),
        refreshToken: refreshToken === null ? null : this.#seal(orgId, id, 'refresh_token', refreshToken),
        expiresAt: tokens.expiresAt,
        instanceUrl: tokens.instanceUrl ?? null,
      });
      await this.#audit(tx, orgId, 'connection.authorized', { connection_id: id, account_id: accountId }, actor);
      return updated;
    });
    if (!authorized) throw new Refusal('not_found', `no connection ${id}`);
    this.#startSync(authorized);
    return authorized;
  }

  async pause(orgId: string, id: string, actor: AdminActor = CLI_ACTOR): Promise<connections.ConnectionRecord> {
    await this.#authorized(orgId, id);
    const paused = await this.#move(orgId, id, 'paused', { overPause: true }, 'connection.paused', {}, actor);
    await this.#cdc?.stop(orgId, id);
    return paused;
  }

  /** Live again: what the CRM announced meanwhile is read and applied. */
  async resume(orgId: string, id: string, actor: AdminActor = CLI_ACTOR): Promise<connections.ConnectionRecord> {
    await this.#authorized(orgId, id);
    const resumed = await this.#move(orgId, id, 'connected', { overPause: true }, 'connection.resumed', {}, actor);
    await this.#applyPending(orgId, id);
    if (resumed.kind === 'salesforce') this.#cdc?.start(orgId, id);
    return this.get(orgId, id);
  }

  async resync(
    orgId: string,
    id: string,
    from: Date | undefined,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<connections.ConnectionRecord> {
    const connection = await this.#authorized(orgId, id);
    if (connection.status === 'paused')
      throw new Refusal('invalid_state', `connection ${id} is paused: resume it first`);
    const moved = await this.#move(
      orgId,
      id,
      'syncing',
      { syncFrom: from ?? null },
      'connection.resynced',
      { from: from?.toISOString() ?? null },
      actor,
    );
    this.#startSync(moved);
    return moved;
  }

  /** Forgets the connection and its tokens; the deals it brought in stay, with their earnings. */
  async remove(orgId: string, id: string, actor: AdminActor = CLI_ACTOR): Promise<void> {
    await this.#db.run(async (tx) => {
      if (!(await connections.remove(tx, orgId, id))) throw new Refusal('not_found', `no connection ${id}`);
      await this.#audit(tx, orgId, 'connection.removed', { connection_id: id }, actor);
    });
    await this.#cdc?.stop(orgId, id);
  }

  /** The mapping as it applies to the CRM's first deals: nothing is written. */
  async preview(orgId: string, id: string, limit = 10): Promise<ConnectionPreview> {
    const connection = await this.#authorized(orgId, id);
    try {
      return connection.kind === 'salesforce'
        ? await this.#salesforce.preview(connection, limit)
        : await this.#hubspot.preview(connection, limit);
    } catch (error) {
      if (error instanceof CrmRefusal) throw new Refusal('invalid_state', error.message);
      throw error;
    }
  }

  /**
   * A webhook's deal events for a connection whose signature was checked: applied at once (the deals read again),
   * or, while paused, noted to apply on resume. Throws a CrmRefusal when HubSpot refused the read (the deals stay
   * pending, read again by the next webhook or a resume).
   */
  async applyAnnounced(
    connection: connections.ConnectionCredentials,
    events: readonly DealChangeEvent[],
  ): Promise<void> {
    if (events.length === 0) return;
    if (connection.status === 'paused' || connection.status === 'pending') {
      const ids = events.map(pendingEntry);
      await connections.notePending(this.#db.statements, connection.org_id, connection.id, ids);
      return;
    }
    await this.#hubspot.applyAnnounced(connection, [...pendingEvents(connection.pending_ids), ...events]);
  }

  /** The connection a webhook names, with its secret, and the client secret that signs HubSpot's requests to it. */
  async webhookTarget(
    orgId: string,
    id: string,
  ): Promise<{ connection: connections.ConnectionCredentials; clientSecret: string } | null> {
    const connection = await connections.findCredentials(this.#db.statements, orgId, id).catch(() => null);
    if (connection?.kind !== 'hubspot') return null;
    return { connection, clientSecret: this.#hubspot.appOf(connection).clientSecret };
  }

  /** Resolves once the background syncs started so far have ended (the CLI waits for a sync it started). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()]);
  }

  /** No sync starts any more; those running end (their connection stays `syncing`, re-synced on request). */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all([this.settled(), this.#cdc?.close(), this.#poller?.close()]);
  }

  /**
   * A serving process runs Salesforce's change subscribers (src/services/connectors/salesforceCdc.ts) and takes
   * part in HubSpot's syncs and reconciliation polls.
   */
  async startSubscribers(log?: SubscriberLog): Promise<void> {
    this.#poller?.serve(log);
    await this.#cdc?.serve(log);
  }

  /** HubSpot's reconciliation poll of the connection now, under its lease (what a round runs when it is due). */
  async reconcileNow(orgId: string, id: string): Promise<void> {
    const connection = await this.#authorized(orgId, id);
    if (connection.kind !== 'hubspot') throw new Refusal('invalid_state', `connection ${id} is not HubSpot's`);
    await this.#poller?.reconcileNow(orgId, id);
  }

  /** One round of HubSpot's due work in this process: what a serving or worker process runs on its timer. */
  async hubspotRound(): Promise<void> {
    await this.#poller?.round();
  }

  /** A `quotient worker` process takes part in HubSpot's syncs and reconciliation polls (each under its lease). */
  startHubSpotWork(log?: SubscriberLog): void {
    this.#poller?.serve(log);
  }

  #startSync(connection: Pick<connections.ConnectionRecord, 'org_id' | 'id' | 'kind'>): void {
    if (this.#closing) return;
    const { org_id: orgId, id } = connection;
    const key = `${orgId}/${id}`;
    const before = this.#running.get(key) ?? Promise.resolve();
    const stopped = () => this.#closing;
    const poller = this.#poller;
    // HubSpot's sync runs under the connection's lease: held elsewhere, its holder runs the sync (still `syncing`).
    const backfill =
      connection.kind === 'salesforce'
        ? () => this.#salesforce.backfill(orgId, id, stopped)
        : poller === undefined
          ? () => this.#hubspot.backfill(orgId, id, stopped)
          : () => poller.exclusive(orgId, id, () => this.#hubspot.backfill(orgId, id, stopped));
    const run = before
      .then(backfill)
      .then(() => {
        if (connection.kind === 'salesforce') this.#cdc?.start(orgId, id);
      })
      .catch(async (error: unknown) => {
        // A fault of Quotient's own (the database) is kept on the connection, so that its state says it.
        const reason = error instanceof Error ? error.message : String(error);
        await connections
          .recordFailure(this.#db.statements, orgId, id, `the sync stopped: ${reason}`, [])
          .catch(() => undefined);
      })
      .finally(() => {
        if (this.#running.get(key) === run) this.#running.delete(key);
      });
    this.#running.set(key, run);
  }

  async #applyPending(orgId: string, id: string): Promise<void> {
    const connection = await this.#credentials(orgId, id);
    if (connection.kind !== 'hubspot' || connection.pending_ids.length === 0) return;
    try {
      await this.#hubspot.applyAnnounced(connection, pendingEvents(connection.pending_ids));
    } catch (error) {
      if (!(error instanceof CrmRefusal)) throw error;
    }
  }

  async #credentials(orgId: string, id: string): Promise<connections.ConnectionCredentials> {
    const found = await connections.findCredentials(this.#db.statements, orgId, id);
    if (!found) throw new Refusal('not_found', `no connection ${id}`);
    return found;
  }

  async #authorized(orgId: string, id: string): Promise<connections.ConnectionCredentials> {
    const found = await this.#credentials(orgId, id);
    if (found.status === 'pending' || found.account_id === null) {
      throw new Refusal('invalid_state', `connection ${id} is not authorized yet: authorize it first`);
    }
    return found;
  }

  async #move(
    orgId: string,
    id: string,
    status: connections.ConnectionStatus,
    options: { overPause?: boolean; syncFrom?: Date | null },
    action: string,
    details: Record<string, unknown>,
    actor: AdminActor,
  ): Promise<connections.ConnectionRecord> {
    return this.#db.run(async (tx) => {
      const moved = await connections.setStatus(tx, orgId, id, status, options);
      if (!moved) throw new Refusal('invalid_state', `connection ${id} is paused: resume it first`);
      await this.#audit(tx, orgId, action, { connection_id: id, ...details }, actor);
      return moved;
    });
  }

  #audit(
    tx: Transaction,
    orgId: string,
    action: string,
    details: Record<string, unknown>,
    actor: AdminActor,
  ): Promise<void> {
    return audit.insertMany(tx, [adminAuditEntry(orgId, action, details, actor)]);
  }

  #seal(orgId: string, id: string, field: string, value: string): string {
    try {
      return this.#hubspot.seal(orgId, id, field, value);
    } catch (error) {
      if (error instanceof MissingSecretKey) throw new Refusal('invalid_state', error.message);
      throw error;
    }
  }
}
