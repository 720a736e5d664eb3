import { createHash, randomBytes } from 'node:crypto';
import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../../audit/adminEntries.ts';
import { type DealChangeEvent, dealProperties, pendingEntry, pendingEvents } from '../../domain/connectors/hubspot.ts';
import { Refusal } from '../../domain/refusal.ts';
import { MissingSecretKey } from '../../lib/secretBox.ts';
import * as audit from '../../repositories/audit.ts';
import * as connections from '../../repositories/connections.ts';
import * as orgs from '../../repositories/orgs.ts';
import type { Transaction, Transactor } from '../../repositories/transaction.ts';
import * as hubspot from './hubspotApi.ts';
import type { HubSpotSync, ReadDeal } from './hubspotSync.ts';

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
  /** The background sync of each connection, chained so one connection syncs once at a time. */
  readonly #running = new Map<string, Promise<void>>();
  #closing = false;

  constructor(db: Transactor, hubspotSync: HubSpotSync) {
    this.#db = db;
    this.#hubspot = hubspotSync;
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
    input: { kind: connections.ConnectionKind; clientId: string; clientSecret: string; redirectUri: string },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<connections.ConnectionRecord> {
    if (!(await orgs.find(this.#db.statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
    if (input.kind !== 'hubspot') {
      throw new Refusal(
        'invalid_state',
        'Salesforce connections are not available yet (docs/connectors.md, "Not yet")',
      );
    }
    const redirectUri = parseRedirect(input.redirectUri);
    return this.#db.run(async (tx) => {
      const created = await connections.insert(tx, {
        orgId,
        kind: input.kind,
        clientId: input.clientId.trim(),
        redirectUri,
        sealSecret: (id) => this.#seal(orgId, id, 'client_secret', input.clientSecret),
      });
      await this.#audit(tx, orgId, 'connection.created', { connection_id: created.id, kind: created.kind }, actor);
      return created;
    });
  }

  /** The CRM's authorization URL with a fresh state; an earlier state of the connection stops working. */
  async authorize(
    orgId: string,
    id: string,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ authorizeUrl: string; state: string }> {
    const connection = await this.#credentials(orgId, id);
    const state = randomBytes(24).toString('base64url');
    await this.#db.run(async (tx) => {
      await connections.startAuthorization(tx, orgId, id, digest(state));
      await this.#audit(tx, orgId, 'connection.authorization_started', { connection_id: id }, actor);
    });
    return {
      authorizeUrl: hubspot.authorizationUrl(this.#hubspot.endpoints, this.#hubspot.appOf(connection), state),
      state,
    };
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
    let tokens: hubspot.Tokens;
    let portalId: string;
    try {
      tokens = await hubspot.exchangeCode(
        this.#hubspot.endpoints,
        this.#hubspot.appOf(connection),
        input.code,
        new Date(),
      );
      portalId = await hubspot.portalOf(this.#hubspot.endpoints, tokens.accessToken);
    } catch (error) {
      if (error instanceof hubspot.CrmRefusal) throw new Refusal('invalid_state', error.message);
      throw error;
    }
    const authorized = await this.#db.run(async (tx) => {
      const updated = await connections.authorize(tx, orgId, id, {
        accountId: portalId,
        accessToken: this.#seal(orgId, id, 'access_token', tokens.accessToken),
        refreshToken: this.#seal(orgId, id, 'refresh_token', tokens.refreshToken),
        expiresAt: tokens.expiresAt,
      });
      await this.#audit(tx, orgId, 'connection.authorized', { connection_id: id, account_id: portalId }, actor);
      return updated;
    });
    if (!authorized) throw new Refusal('not_found', `no connection ${id}`);
    this.#startSync(orgId, id);
    return authorized;
  }

  async pause(orgId: string, id: string, actor: AdminActor = CLI_ACTOR): Promise<connections.ConnectionRecord> {
    await this.#authorized(orgId, id);
    return this.#move(orgId, id, 'paused', { overPause: true }, 'connection.paused', {}, actor);
  }

  /** Live again: what the CRM announced meanwhile is read and applied. */
  async resume(orgId: string, id: string, actor: AdminActor = CLI_ACTOR): Promise<connections.ConnectionRecord> {
    await this.#authorized(orgId, id);
    await this.#move(orgId, id, 'connected', { overPause: true }, 'connection.resumed', {}, actor);
    await this.#applyPending(orgId, id);
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
    this.#startSync(orgId, id);
    return moved;
  }

  /** Forgets the connection and its tokens; the deals it brought in stay, with their earnings. */
  async remove(orgId: string, id: string, actor: AdminActor = CLI_ACTOR): Promise<void> {
    await this.#db.run(async (tx) => {
      if (!(await connections.remove(tx, orgId, id))) throw new Refusal('not_found', `no connection ${id}`);
      await this.#audit(tx, orgId, 'connection.removed', { connection_id: id }, actor);
    });
  }

  /** The mapping as it applies to the CRM's first deals: nothing is written. */
  async preview(orgId: string, id: string, limit = 10): Promise<ConnectionPreview> {
    const connection = await this.#authorized(orgId, id);
    try {
      const token = await this.#hubspot.accessToken(connection);
      const portal = await this.#hubspot.portalMapping(orgId, token);
      const page = await hubspot.dealsPage(this.#hubspot.endpoints, token, {
        after: undefined,
        properties: dealProperties(portal.mapping),
        archived: false,
      });
      const won = new Set(portal.mapping.won_stages);
      const lost = new Set(portal.mapping.lost_stages);
      const stage = (stage: (typeof portal.stages)[number]) => ({
        pipeline: stage.pipeline,
        stage_id: stage.stageId,
        label: stage.label,
      });
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
        records: page.deals
          .slice(0, limit)
          .map((deal) => this.#hubspot.read(portal, connection.account_id ?? '', deal)),
      };
    } catch (error) {
      if (error instanceof hubspot.CrmRefusal) throw new Refusal('invalid_state', error.message);
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
    if (!connection) return null;
    return { connection, clientSecret: this.#hubspot.appOf(connection).clientSecret };
  }

  /** Resolves once the background syncs started so far have ended (the CLI waits for a sync it started). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()]);
  }

  /** No sync starts any more; those running end (their connection stays `syncing`, re-synced on request). */
  async close(): Promise<void> {
    this.#closing = true;
    await this.settled();
  }

  #startSync(orgId: string, id: string): void {
    if (this.#closing) return;
    const key = `${orgId}/${id}`;
    const before = this.#running.get(key) ?? Promise.resolve();
    const run = before
      .then(() => this.#hubspot.backfill(orgId, id, () => this.#closing))
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
    if (connection.pending_ids.length === 0) return;
    try {
      await this.#hubspot.applyAnnounced(connection, pendingEvents(connection.pending_ids));
    } catch (error) {
      if (!(error instanceof hubspot.CrmRefusal)) throw error;
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

function digest(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

function parseRedirect(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Refusal('invalid_body', `redirect_uri: ${JSON.stringify(raw)} is not a URL`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Refusal('invalid_body', 'redirect_uri: must be an https URL (plain http only on a loopback address)');
  }
  return url.toString();
}
