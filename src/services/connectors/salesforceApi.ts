import { createSign } from 'node:crypto';
import { Connection, OAuth2 } from '@jsforce/jsforce-node';
import {
  CORPORATE_CURRENCY_QUERY,
  jwtAudience,
  type OpportunityRecord,
  type OpportunityStage,
  orgIdOf,
  revenueSplitType,
  SPLIT_TYPES_QUERY,
  type SplitRecord,
  STAGES_QUERY,
  splitsQuery,
  USERS_QUERY,
} from '../../domain/connectors/salesforce.ts';
import { CrmRefusal } from './crmRefusal.ts';

// Salesforce's APIs as the connector calls them, through jsforce (`@jsforce/jsforce-node`): the OAuth 2.0 token
// endpoint of the org's login URL (the web-server flow's code exchange and refresh, and the JWT bearer flow, its
// assertion signed with node:crypto), and the REST API of the org's instance (describe, SOQL query and queryAll, paged
// by `nextRecordsUrl`). A refusal of Salesforce's becomes a `CrmRefusal` carrying its own error code and message.

/** Opportunity ids named in one query of their splits (keeps the SOQL well inside the REST API's URL length). */
const SPLIT_IDS_PER_QUERY = 200;

/** The REST API version the connector calls. */
export const API_VERSION = '62.0';

/** The scopes the web-server flow asks for: the REST API, and a refresh token to call it unattended. */
export const SALESFORCE_SCOPES = ['api', 'refresh_token'];

/**
 * How long a session is taken to live: Salesforce's token response has no expiry, and the org's session timeout
 * (2 hours unless an admin changed it) decides; a session that ends sooner is refreshed on its first 401.
 */
export const SESSION_MS = 2 * 60 * 60 * 1000;

/** The connected app of a connection, as the web-server flow uses it. */
export interface SalesforceApp {
  loginUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** The JWT bearer flow's party: the connected app's consumer key, the user it acts as, the certificate's key. */
export interface JwtBearer {
  loginUrl: string;
  clientId: string;
  username: string;
  privateKey: string;
}

export interface SalesforceTokens {
  accessToken: string;
  /** Only the web-server flow issues one; the JWT bearer flow signs a new assertion instead. */
  refreshToken: string | null;
  instanceUrl: string;
  orgId: string;
  expiresAt: Date;
}

function refusalOf(error: unknown): CrmRefusal {
  if (error instanceof CrmRefusal) return error;
  const failed = error as { name?: unknown; errorCode?: unknown; message?: unknown };
  const code = typeof failed.errorCode === 'string' ? failed.errorCode : failed.name;
  const message = String(failed.message ?? error);
  if (typeof code === 'string' && code !== 'Error' && code !== 'TypeError' && code !== 'FetchError') {
    return new CrmRefusal(`Salesforce answered ${code}: ${message}`);
  }
  return new CrmRefusal(`Salesforce could not be reached: ${message}`, undefined, { unreachable: true });
}

async function call<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw refusalOf(error);
  }
}

function oauth(app: Pick<SalesforceApp, 'loginUrl' | 'clientId'> & Partial<SalesforceApp>): OAuth2 {
  return new OAuth2({
    loginUrl: app.loginUrl,
    clientId: app.clientId,
    ...(app.clientSecret ? { clientSecret: app.clientSecret } : {}),
    ...(app.redirectUri ? { redirectUri: app.redirectUri } : {}),
  });
}

/** The URL that asks the org's admin to grant the connected app access, with the state handed back. */
export function authorizationUrl(app: SalesforceApp, state: string): string {
  return oauth(app).getAuthorizationUrl({ scope: SALESFORCE_SCOPES.join(' '), state });
}

function tokensOf(response: Record<string, unknown>, refreshToken: string | null, now: Date): SalesforceTokens {
  const accessToken = response.access_token;
  const instanceUrl = response.instance_url;
  const orgId = orgIdOf(response.id);
  if (typeof accessToken !== 'string' || typeof instanceUrl !== 'string' || orgId === null) {
    throw new CrmRefusal('Salesforce answered a token response without access_token, instance_url or id');
  }
  const issued = Number(response.issued_at);
  const issuedAt = Number.isFinite(issued) && issued > 0 ? issued : now.getTime();
  return {
    accessToken,
    refreshToken: typeof response.refresh_token === 'string' ? response.refresh_token : refreshToken,
    instanceUrl,
    orgId,
    expiresAt: new Date(issuedAt + SESSION_MS),
  };
}

/** The web-server flow: the code the redirect URL was handed, for tokens. */
export function exchangeCode(app: SalesforceApp, code: string, now: Date): Promise<SalesforceTokens> {
  return call(async () => tokensOf((await oauth(app).requestToken(code)) as never, null, now));
}

export function refreshTokens(app: SalesforceApp, refreshToken: string, now: Date): Promise<SalesforceTokens> {
  return call(async () => tokensOf((await oauth(app).refreshToken(refreshToken)) as never, refreshToken, now));
}

/** The JWT bearer flow: an assertion (RS256) of the consumer key, the user and the audience, valid 3 minutes. */
export function jwtGrant(party: JwtBearer, now: Date): Promise<SalesforceTokens> {
  return call(async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = {
      iss: party.clientId,
      sub: party.username,
      aud: jwtAudience(party.loginUrl),
      exp: Math.floor(now.getTime() / 1000) + 180,
    };
    const unsigned = `${encode({ alg: 'RS256' })}.${encode(claims)}`;
    let signature: string;
    try {
      signature = createSign('RSA-SHA256').update(unsigned).sign(party.privateKey, 'base64url');
    } catch {
      throw new CrmRefusal('the private key is not a PEM RSA private key');
    }
    const response = await oauth({ loginUrl: party.loginUrl, clientId: party.clientId }).requestToken({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: `${unsigned}.${signature}`,
    });
    return tokensOf(response as never, null, now);
  });
}

/**
 * The org's REST API with a session. `renew` is called when Salesforce answers 401 (the session ended before its
 * time): it returns a fresh access token (stored by the caller), and the call is made again once.
 */
export class SalesforceClient {
  readonly #connection: Connection;

  constructor(instanceUrl: string, accessToken: string, renew: () => Promise<string>) {
    this.#connection = new Connection({
      instanceUrl,
      accessToken,
      version: API_VERSION,
      refreshFn: (_connection, callback) => {
        renew().then(
          (token) => callback(null, token),
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
        );
      },
    });
  }

  /** The names of the object's fields (its describe). */
  fieldsOf(objectName: string): Promise<Set<string>> {
    return call(async () => {
      const described = await this.#connection.describe(objectName);
      return new Set(described.fields.map((field) => field.name));
    });
  }

  /** One page of a query (`queryAll` with deleted records too), and the URL of the next. */
  page(soql: string, options: { all: boolean }): Promise<{ records: OpportunityRecord[]; next: string | undefined }> {
    return call(async () => {
      const result = await this.#connection.query<OpportunityRecord>(soql, {
        autoFetch: false,
        scanAll: options.all,
      });
      return { records: result.records, next: result.done ? undefined : result.nextRecordsUrl };
    });
  }

  next(url: string): Promise<{ records: OpportunityRecord[]; next: string | undefined }> {
    return call(async () => {
      const result = await this.#connection.queryMore<OpportunityRecord>(url, { autoFetch: false } as never);
      return { records: result.records, next: result.done ? undefined : result.nextRecordsUrl };
    });
  }

  /** Every record of a query, its pages followed (`all`: `queryAll`, deleted records too). */
  async all(soql: string, options: { all: boolean } = { all: false }): Promise<OpportunityRecord[]> {
    const found: OpportunityRecord[] = [];
    let page = await this.page(soql, options);
    found.push(...page.records);
    while (page.next !== undefined) {
      page = await this.next(page.next);
      found.push(...page.records);
    }
    return found;
  }

  async stages(): Promise<OpportunityStage[]> {
    return (await this.all(STAGES_QUERY)).map((row) => ({
      ApiName: String(row.ApiName ?? row.MasterLabel),
      MasterLabel: String(row.MasterLabel ?? row.ApiName),
      IsWon: row.IsWon === true,
      IsClosed: row.IsClosed === true,
    }));
  }

  async users(): Promise<Array<{ id: string; email: string | null }>> {
    return (await this.all(USERS_QUERY)).map((row) => ({
      id: row.Id,
      email: typeof row.Email === 'string' && row.Email !== '' ? row.Email : null,
    }));
  }

  /** The org's corporate currency, which amounts are in where the org has no multi-currency. */
  async corporateCurrency(): Promise<string | null> {
    const [row] = await this.all(CORPORATE_CURRENCY_QUERY);
    return typeof row?.DefaultCurrencyIsoCode === 'string' ? row.DefaultCurrencyIsoCode : null;
  }

  /**
   * The revenue split type's id (`OpportunitySplitType`), or null: the org has no Opportunity Splits (Salesforce
   * answers INVALID_TYPE) or no active type splitting `Amount`.
   */
  async revenueSplitType(): Promise<string | null> {
    try {
      return revenueSplitType(await this.all(SPLIT_TYPES_QUERY));
    } catch (error) {
      if (error instanceof CrmRefusal && /INVALID_TYPE/.test(error.message)) return null;
      throw error;
    }
  }

  /** The revenue splits of these Opportunities, by Opportunity id (each id present, with no rows when none). */
  async splitsOf(splitTypeId: string, opportunityIds: readonly string[]): Promise<Map<string, SplitRecord[]>> {
    const found = new Map<string, SplitRecord[]>(opportunityIds.map((id) => [id, []]));
    for (let at = 0; at < opportunityIds.length; at += SPLIT_IDS_PER_QUERY) {
      const ids = opportunityIds.slice(at, at + SPLIT_IDS_PER_QUERY);
      for (const row of await this.all(splitsQuery(splitTypeId, ids))) {
        found.get(String(row.OpportunityId))?.push(row);
      }
    }
    return found;
  }
}
