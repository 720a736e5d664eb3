import { newId } from '../lib/ids.ts';
import type { Transaction } from './transaction.ts';

// `crm_connections`: the org's connections to CRM accounts. The client secret and the tokens are stored sealed;
// this module never opens them.

export type ConnectionKind = 'hubspot' | 'salesforce';
export type ConnectionStatus = 'pending' | 'connected' | 'syncing' | 'paused' | 'failing';

/** A connection as the admin API shows it: never its secret or tokens. */
export interface ConnectionRecord {
  id: string;
  org_id: string;
  kind: ConnectionKind;
  status: ConnectionStatus;
  client_id: string;
  /** Null for Salesforce's JWT bearer flow (no browser step). */
  redirect_uri: string | null;
  /** Salesforce: where its OAuth endpoints are (null: the configured default), and the org's instance. */
  login_url: string | null;
  instance_url: string | null;
  /** Salesforce's JWT bearer flow: the user the connection acts as (null: the authorization-code flow). */
  jwt_username: string | null;
  account_id: string | null;
  last_error: string | null;
  last_error_at: Date | null;
  last_change_at: Date | null;
  last_sync_at: Date | null;
  sync_from: Date | null;
  pending_ids: string[];
  token_expires_at: Date | null;
  /** HubSpot's `X-HubSpot-RateLimit-Daily-Remaining` as its last answer said it. */
  daily_remaining: number | null;
  /** The last reconciliation poll (HubSpot's or Salesforce's): when it ended, what it searched from, read and repaired. */
  reconciled_at: Date | null;
  reconciled_from: Date | null;
  reconciled_read: number;
  reconciled_repaired: number;
  reconciled_ids: string[];
  /** Where the next reconciliation poll starts (less the overlap): the newest change a sync or poll read. */
  reconcile_next_from: Date | null;
  created_at: Date;
}

/** What calling the CRM needs: the record with its sealed secret and tokens. */
export interface ConnectionCredentials extends ConnectionRecord {
  client_secret: string | null;
  private_key: string | null;
  access_token: string | null;
  refresh_token: string | null;
}

const LISTED = `id, org_id, kind, status, client_id, redirect_uri, login_url, instance_url, jwt_username, account_id,
  last_error, last_error_at, last_change_at, last_sync_at, sync_from, pending_ids, token_expires_at, daily_remaining,
  reconciled_at, reconciled_from, reconciled_read, reconciled_repaired, reconciled_ids, reconcile_next_from,
  created_at`;
const WITH_SECRETS = `${LISTED}, client_secret, private_key, access_token, refresh_token`;

export async function insert(
  tx: Transaction,
  input: {
    orgId: string;
    kind: ConnectionKind;
    clientId: string;
    /** The sealed client secret, or null (the JWT bearer flow). */
    sealSecret: (id: string) => string | null;
    redirectUri: string | null;
    loginUrl?: string | null;
    /** The JWT bearer flow's user and sealed private key. */
    jwt?: { username: string; sealKey: (id: string) => string };
  },
): Promise<ConnectionRecord> {
  const id = newId('con');
  const rows = await tx.query<ConnectionRecord>({
    text: `INSERT INTO crm_connections
             (id, org_id, kind, client_id, client_secret, redirect_uri, login_url, jwt_username, private_key)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${LISTED}`,
    values: [
      id,
      input.orgId,
      input.kind,
      input.clientId,
      input.sealSecret(id),
      input.redirectUri,
      input.loginUrl ?? null,
      input.jwt?.username ?? null,
      input.jwt?.sealKey(id) ?? null,
    ],
  });
  return rows[0] as ConnectionRecord;
}

export function listForOrg(tx: Transaction, orgId: string): Promise<ConnectionRecord[]> {
  return tx.query<ConnectionRecord>({
    text: `SELECT ${LISTED} FROM crm_connections WHERE org_id = $1 ORDER BY created_at, id`,
    values: [orgId],
  });
}

export async function find(tx: Transaction, orgId: string, id: string): Promise<ConnectionRecord | null> {
  const rows = await tx.query<ConnectionRecord>({
    text: `SELECT ${LISTED} FROM crm_connections WHERE org_id = $1 AND id = $2`,
    values: [orgId, id],
  });
  return rows[0] ?? null;
}

export async function findCredentials(
  tx: Transaction,
  orgId: string,
  id: string,
): Promise<ConnectionCredentials | null> {
  const rows = await tx.query<ConnectionCredentials>({
    text: `SELECT ${WITH_SECRETS} FROM crm_connections WHERE org_id = $1 AND id = $2`,
    values: [orgId, id],
  });
  return rows[0] ?? null;
}

/** The connection an authorization's state was issued for (its digest), with its secret. */
export async function findByState(
  tx: Transaction,
  orgId: string,
  stateDigest: string,
): Promise<ConnectionCredentials | null> {
  const rows = await tx.query<ConnectionCredentials>({
    text: `SELECT ${WITH_SECRETS} FROM crm_connections WHERE org_id = $1 AND oauth_state = $2`,
    values: [orgId, stateDigest],
  });
  return rows[0] ?? null;
}

export async function startAuthorization(
  tx: Transaction,
  orgId: string,
  id: string,
  stateDigest: string,
): Promise<boolean> {
  const rows = await tx.query<{ id: string }>({
    text: 'UPDATE crm_connections SET oauth_state = $3 WHERE org_id = $1 AND id = $2 RETURNING id',
    values: [orgId, id, stateDigest],
  });
  return rows.length > 0;
}

/** The tokens of a completed authorization: the state is consumed, the account known, the first sync next. */
export async function authorize(
  tx: Transaction,
  orgId: string,
  id: string,
  input: {
    accountId: string;
    accessToken: string;
    refreshToken: string | null;
    expiresAt: Date;
    instanceUrl?: string | null;
  },
): Promise<ConnectionRecord | null> {
  const rows = await tx.query<ConnectionRecord>({
    text: `UPDATE crm_connections
           SET oauth_state = NULL, account_id = $3, access_token = $4, refresh_token = $5, token_expires_at = $6,
               instance_url = $7, status = 'syncing', last_error = NULL, last_error_at = NULL, sync_from = NULL
           WHERE org_id = $1 AND id = $2 RETURNING ${LISTED}`,
    values: [
      orgId,
      id,
      input.accountId,
      input.accessToken,
      input.refreshToken,
      input.expiresAt,
      input.instanceUrl ?? null,
    ],
  });
  return rows[0] ?? null;
}

export async function storeTokens(
  tx: Transaction,
  orgId: string,
  id: string,
  input: { accessToken: string; refreshToken: string | null; expiresAt: Date; instanceUrl?: string },
): Promise<void> {
  await tx.query({
    text: `UPDATE crm_connections SET access_token = $3, refresh_token = $4, token_expires_at = $5,
             instance_url = COALESCE($6, instance_url)
           WHERE org_id = $1 AND id = $2`,
    values: [orgId, id, input.accessToken, input.refreshToken, input.expiresAt, input.instanceUrl ?? null],
  });
}

/** Moves the status, unless the connection is paused (an admin's pause stands until an admin resumes). */
export async function setStatus(
  tx: Transaction,
  orgId: string,
  id: string,
  status: ConnectionStatus,
  options: { overPause?: boolean; syncFrom?: Date | null } = {},
): Promise<ConnectionRecord | null> {
  const rows = await tx.query<ConnectionRecord>({
    text: `UPDATE crm_connections SET status = $3, sync_from = CASE WHEN $5 THEN $6 ELSE sync_from END
           WHERE org_id = $1 AND id = $2 AND (status <> 'paused' OR $4) RETURNING ${LISTED}`,
    values: [orgId, id, status, options.overPause === true, options.syncFrom !== undefined, options.syncFrom ?? null],
  });
  return rows[0] ?? null;
}

/** The CRM refused a call: its error is kept, and the records to read again. */
export async function recordFailure(
  tx: Transaction,
  orgId: string,
  id: string,
  error: string,
  pendingIds: readonly string[],
): Promise<void> {
  await tx.query({
    text: `UPDATE crm_connections
           SET last_error = $3, last_error_at = now(),
               status = CASE WHEN status = 'paused' THEN status ELSE 'failing' END,
               pending_ids = ARRAY(SELECT DISTINCT unnest(pending_ids || $4::text[]) ORDER BY 1)
           WHERE org_id = $1 AND id = $2`,
    values: [orgId, id, error.slice(0, 2000), pendingIds],
  });
}

/** Records the CRM announced while the connection does not apply them (paused). */
export async function notePending(
  tx: Transaction,
  orgId: string,
  id: string,
  dealIds: readonly string[],
): Promise<void> {
  await tx.query({
    text: `UPDATE crm_connections SET pending_ids = ARRAY(SELECT DISTINCT unnest(pending_ids || $3::text[]) ORDER BY 1)
           WHERE org_id = $1 AND id = $2`,
    values: [orgId, id, dealIds],
  });
}

/**
 * A call succeeded and its records are applied: the error is cleared, the applied ids leave the pending ones, the
 * newest change seen moves on, and a failing connection is live again.
 */
export async function recordSuccess(
  tx: Transaction,
  orgId: string,
  id: string,
  input: { appliedIds: readonly string[]; lastChangeAt: Date | null; synced: boolean },
): Promise<void> {
  await tx.query({
    text: `UPDATE crm_connections
           SET last_error = NULL, last_error_at = NULL,
               status = CASE WHEN status IN ('failing', 'syncing') AND ($5 OR status = 'failing') THEN 'connected'
                             ELSE status END,
               pending_ids = ARRAY(SELECT unnest(pending_ids) EXCEPT SELECT unnest($3::text[]) ORDER BY 1),
               last_change_at = GREATEST(last_change_at, $4),
               last_sync_at = CASE WHEN $5 THEN $6::timestamptz ELSE last_sync_at END,
               sync_from = CASE WHEN $5 THEN NULL ELSE sync_from END
           WHERE org_id = $1 AND id = $2`,
    // The clock as a parameter: Citus refuses a stable function such as now() in a CASE of an UPDATE.
    values: [orgId, id, input.appliedIds, input.lastChangeAt, input.synced, new Date()],
  });
}

/** Records the CRM sent that could not become deal events: named, with their ids, the status unchanged. */
export async function recordProblem(tx: Transaction, orgId: string, id: string, problem: string): Promise<void> {
  await tx.query({
    text: 'UPDATE crm_connections SET last_error = $3, last_error_at = now() WHERE org_id = $1 AND id = $2',
    values: [orgId, id, problem.slice(0, 2000)],
  });
}

export async function remove(tx: Transaction, orgId: string, id: string): Promise<boolean> {
  const rows = await tx.query<{ id: string }>({
    text: 'DELETE FROM crm_connections WHERE org_id = $1 AND id = $2 RETURNING id',
    values: [orgId, id],
  });
  return rows.length > 0;
}

/** Where a Salesforce connection's change subscriber stands: its stored replay id and newest change seen. */
export interface SubscriberStand {
  status: ConnectionStatus;
  account_id: string | null;
  cdc_replay_id: string | null;
  last_change_at: Date | null;
}

/**
 * Takes (or keeps) the lease of the connection's one change subscriber: free, expired, or already this holder's.
 * Null when another process holds it, or the connection is gone, paused or not authorized.
 */
export async function takeSubscriberLease(
  tx: Transaction,
  orgId: string,
  id: string,
  lease: { holder: string; now: Date; until: Date },
): Promise<SubscriberStand | null> {
  // The one lease of a connection's background work, of either CRM: Salesforce's change subscriber, HubSpot's syncs
  // and reconciliation poll (src/services/connectors/hubspotPoll.ts).
  const rows = await tx.query<SubscriberStand>({
    text: `UPDATE crm_connections SET cdc_holder = $3, cdc_lease_until = $5
           WHERE org_id = $1 AND id = $2 AND status <> 'paused' AND account_id IS NOT NULL
             AND (cdc_holder IS NULL OR cdc_holder = $3 OR cdc_lease_until IS NULL OR cdc_lease_until < $4)
           RETURNING status, account_id, cdc_replay_id, last_change_at`,
    values: [orgId, id, lease.holder, lease.now, lease.until],
  });
  return rows[0] ?? null;
}

/**
 * A committed batch: the replay id after it (null: start again from the earliest retained event), the newest
 * change, the lease renewed. False when the holder lost the lease (it then stops).
 */
export async function storeReplayId(
  tx: Transaction,
  orgId: string,
  id: string,
  input: { holder: string; replayId: string | null; lastChangeAt: Date | null; until: Date },
): Promise<boolean> {
  const rows = await tx.query<{ id: string }>({
    text: `UPDATE crm_connections
           SET cdc_replay_id = $4, cdc_lease_until = $6, last_change_at = GREATEST(last_change_at, $5)
           WHERE org_id = $1 AND id = $2 AND cdc_holder = $3 RETURNING id`,
    values: [orgId, id, input.holder, input.replayId, input.lastChangeAt, input.until],
  });
  return rows.length > 0;
}

/** A first sync or re-sync read the records up to this change time: the next reconciliation poll starts there. */
export async function advanceReconcileFrom(tx: Transaction, orgId: string, id: string, to: Date): Promise<void> {
  await tx.query({
    text: `UPDATE crm_connections SET reconcile_next_from = GREATEST(reconcile_next_from, $3)
           WHERE org_id = $1 AND id = $2`,
    values: [orgId, id, to],
  });
}

/**
 * A reconciliation poll run by the change subscriber's lease holder (Salesforce) ended: as recordReconciliation, the
 * next start only ever moving forward. False when the holder lost the lease.
 */
export async function recordHeldReconciliation(
  tx: Transaction,
  orgId: string,
  id: string,
  input: {
    holder: string;
    from: Date | null;
    nextFrom: Date | null;
    read: number;
    repaired: number;
    repairedIds: readonly string[];
  },
): Promise<boolean> {
  const rows = await tx.query<{ id: string }>({
    text: `UPDATE crm_connections
           SET reconciled_at = now(), reconciled_from = $4, reconcile_next_from = GREATEST(reconcile_next_from, $5),
               reconciled_read = $6, reconciled_repaired = $7, reconciled_ids = $8::text[]
           WHERE org_id = $1 AND id = $2 AND cdc_holder = $3 RETURNING id`,
    values: [
      orgId,
      id,
      input.holder,
      input.from,
      input.nextFrom,
      input.read,
      input.repaired,
      input.repairedIds.slice(0, 20),
    ],
  });
  return rows.length > 0;
}

/** The holder stops: the lease is free for another process at once. */
export async function releaseSubscriberLease(
  tx: Transaction,
  orgId: string,
  id: string,
  holder: string,
): Promise<void> {
  await tx.query({
    text: 'UPDATE crm_connections SET cdc_holder = NULL, cdc_lease_until = NULL WHERE org_id = $1 AND id = $2 AND cdc_holder = $3',
    values: [orgId, id, holder],
  });
}

/**
 * The Salesforce connections a serving process subscribes to when it starts: authorized and not paused, in every
 * org (a statement across orgs, run once per process start; each subscriber then takes its connection's lease).
 */
export function subscribable(tx: Transaction): Promise<Array<{ org_id: string; id: string }>> {
  return tx.query<{ org_id: string; id: string }>({
    text: `SELECT org_id, id FROM crm_connections
           WHERE kind = 'salesforce' AND status <> 'paused' AND account_id IS NOT NULL ORDER BY org_id, id`,
    values: [],
  });
}

/**
 * The HubSpot connections a process with the connectors' background work polls: authorized and not paused, in every
 * org (a statement across orgs, run by each process at each round; each connection's work then takes its lease).
 */
export function pollable(tx: Transaction): Promise<Array<{ org_id: string; id: string }>> {
  return tx.query<{ org_id: string; id: string }>({
    text: `SELECT org_id, id FROM crm_connections
           WHERE kind = 'hubspot' AND status <> 'paused' AND account_id IS NOT NULL ORDER BY org_id, id`,
    values: [],
  });
}

/** Where a connection's reconciliation poll starts from: the previous one's start (null: none ran yet). */
export async function reconcileFrom(tx: Transaction, orgId: string, id: string): Promise<Date | null> {
  const rows = await tx.query<{ reconcile_next_from: Date | null }>({
    text: 'SELECT reconcile_next_from FROM crm_connections WHERE org_id = $1 AND id = $2',
    values: [orgId, id],
  });
  return rows[0]?.reconcile_next_from ?? null;
}

/** A reconciliation poll ended: what it searched from, read and repaired, and where the next one starts. */
export async function recordReconciliation(
  tx: Transaction,
  orgId: string,
  id: string,
  input: { from: Date; nextFrom: Date; read: number; repaired: number; repairedIds: readonly string[] },
): Promise<void> {
  await tx.query({
    text: `UPDATE crm_connections
           SET reconciled_at = now(), reconciled_from = $3, reconcile_next_from = $4, reconciled_read = $5,
               reconciled_repaired = $6, reconciled_ids = $7::text[]
           WHERE org_id = $1 AND id = $2`,
    values: [orgId, id, input.from, input.nextFrom, input.read, input.repaired, input.repairedIds.slice(0, 20)],
  });
}

/** HubSpot's daily limit as a response stated it (`X-HubSpot-RateLimit-Daily-Remaining`). */
export async function recordDailyRemaining(
  tx: Transaction,
  orgId: string,
  id: string,
  remaining: number,
): Promise<void> {
  await tx.query({
    text: 'UPDATE crm_connections SET daily_remaining = $3, daily_remaining_at = now() WHERE org_id = $1 AND id = $2',
    values: [orgId, id, remaining],
  });
}
