import { createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A Salesforce org as its public references describe it, for the connector's tests: the OAuth 2.0 endpoints of the
// login URL (the web-server flow's authorize redirect and token endpoint with `authorization_code` and
// `refresh_token` grants, and the JWT bearer grant, its RS256 assertion checked against the connected app's
// certificate), and the org's REST API (`/services/data/vXX.X/`: `query` and `queryAll` with SOQL, paged by
// `nextRecordsUrl`, and `sobjects/Opportunity/describe`). The SOQL understood is what a connector sends: SELECT of
// fields FROM an object, WHERE of comparisons (`=`, `>`, `>=` on strings, datetimes and booleans, `IN (...)`)
// joined by AND, ORDER BY, LIMIT. Opportunity Splits are enabled (`OpportunitySplitType` with the revenue type
// "Revenue" splitting `Amount`, and `OpportunitySplit` rows, each stamped when written), or not: the split objects
// are then INVALID_TYPE, as in an org without the feature. Sessions end when a test says so (`expireSessions`): the
// REST API then answers 401 INVALID_SESSION_ID, as Salesforce does; `unreachable` drops every REST request's
// connection unanswered (a network down between the caller and Salesforce).

export interface SalesforceSimulator {
  url: string;
  clientId: string;
  clientSecret: string;
  orgId: string;
  jwtUsername: string;
  /** The PEM private key of the connected app's certificate (its public key is the simulator's). */
  privateKey: string;
  /** Each token grant served, in order. */
  grants: string[];
  /** The Opportunity records, by id, as the REST API returns them. */
  putOpportunity(id: string, fields: Record<string, unknown>): void;
  deleteOpportunity(id: string): void;
  /** The record as the REST API returns it now (its `SystemModstamp` is a change's commit time). */
  opportunity(id: string): Record<string, unknown> | undefined;
  /** Whether an access token is a live session (the Pub/Sub simulator checks its callers by it). */
  hasSession(token: string): boolean;
  putUser(id: string, email: string | null): void;
  /**
   * The Opportunity's revenue splits replaced (Salesforce keeps them at 100%: a split removed gives its share back
   * to another), each row stamped now; the Opportunity itself is not changed.
   */
  putSplits(opportunityId: string, splits: ReadonlyArray<{ owner: string; percentage: number }>): void;
  /** Whether the org has Opportunity Splits (true unless a test turns them off). */
  splitsEnabled: boolean;
  /** While true, REST requests are dropped unanswered. */
  unreachable: boolean;
  /** REST requests dropped while unreachable. */
  dropped: number;
  /** An org with several currencies has `CurrencyIsoCode` on its Opportunity. */
  multiCurrency: boolean;
  pageSize: number;
  /** The authorization page: the admin consents, and the redirect's code and state. */
  consent(authorizeUrl: string): Promise<{ redirectUri: string; code: string; state: string }>;
  expireSessions(): void;
  /** Reads of records by id (`Id IN (…)`) wait until the returned function lets them go. */
  holdRecordReads(): () => void;
  /** How many reads of records by id waited. */
  heldReads: number;
  reset(): void;
  close(): Promise<void>;
}

const STAGES = [
  { ApiName: 'Prospecting', MasterLabel: 'Prospecting', IsWon: false, IsClosed: false, IsActive: true, SortOrder: 1 },
  {
    ApiName: 'Negotiation',
    MasterLabel: 'Negotiation/Review',
    IsWon: false,
    IsClosed: false,
    IsActive: true,
    SortOrder: 2,
  },
  { ApiName: 'Signed', MasterLabel: 'Signed (won)', IsWon: true, IsClosed: true, IsActive: true, SortOrder: 3 },
  { ApiName: 'Closed Won', MasterLabel: 'Closed Won', IsWon: true, IsClosed: true, IsActive: true, SortOrder: 4 },
  { ApiName: 'Closed Lost', MasterLabel: 'Closed Lost', IsWon: false, IsClosed: true, IsActive: true, SortOrder: 5 },
];

const OPPORTUNITY_FIELDS = [
  'Id',
  'Name',
  'AccountId',
  'StageName',
  'Amount',
  'CloseDate',
  'OwnerId',
  'Type',
  'LeadSource',
  'IsWon',
  'IsClosed',
  'IsDeleted',
  'LastModifiedDate',
  'SystemModstamp',
];

/** Salesforce's instant format: `2026-05-01T09:10:00.000+0000`. */
function sfInstant(at: number): string {
  return new Date(at).toISOString().replace('Z', '+0000');
}

/** Answers with a JSON body; true, so that a route can end with `return json(…)`. */
function json(res: ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
  res.end(JSON.stringify(body));
  return true;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startSalesforceSimulator(): Promise<SalesforceSimulator> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientId = `3MVG9${randomBytes(12).toString('hex')}`;
  const clientSecret = randomBytes(16).toString('hex');
  const orgId = '00D5g000004ABCDEA2';
  const integrationUser = '0055g00000AAAAAAA1';
  const jwtUsername = 'quotient-integration@example.com';
  const codes = new Map<string, string>();
  const refreshTokens = new Set<string>();
  let sessions = new Set<string>();
  const cursors = new Map<string, { rows: Record<string, unknown>[]; at: number }>();
  let opportunities = new Map<string, Record<string, unknown>>();
  let users = new Map<string, string | null>();
  let splits = new Map<string, Record<string, unknown>[]>();
  let splitSeq = 0;
  const REVENUE_TYPE = '1495g000000REVENU';
  let clock = Date.UTC(2026, 0, 1);
  let url = '';

  const tick = () => {
    clock += 1000;
    return clock;
  };

  const issue = (res: ServerResponse, grant: string, refresh: boolean): true => {
    const token = `00D!${randomBytes(24).toString('base64url')}`;
    sessions.add(token);
    const refreshToken = refresh ? `5Aep${randomBytes(24).toString('base64url')}` : undefined;
    if (refreshToken) refreshTokens.add(refreshToken);
    simulator.grants.push(grant);
    return json(res, 200, {
      access_token: token,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      signature: randomBytes(16).toString('base64'),
      scope: 'api refresh_token',
      instance_url: url,
      id: `${url}/id/${orgId}/${integrationUser}`,
      token_type: 'Bearer',
      issued_at: String(Date.now()),
    });
  };

  const refuse = (res: ServerResponse, error: string, description: string) =>
    json(res, 400, { error, error_description: description });

  function jwtValid(assertion: string): boolean {
    const [header, claims, signature] = assertion.split('.');
    if (!header || !claims || !signature) return false;
    const verified = createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(publicKey, signature, 'base64url');
    if (!verified) return false;
    const body = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>;
    return (
      body.iss === clientId &&
      body.sub === jwtUsername &&
      body.aud === 'https://login.salesforce.com' &&
      typeof body.exp === 'number' &&
      body.exp * 1000 > Date.now()
    );
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<true> {
    const form = new URLSearchParams(await bodyOf(req));
    const grant = form.get('grant_type');
    if (grant === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      if (!jwtValid(form.get('assertion') ?? '')) return refuse(res, 'invalid_grant', 'invalid assertion');
      return issue(res, 'jwt_bearer', false);
    }
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
      return refuse(res, 'invalid_client', 'invalid client credentials');
    }
    if (grant === 'authorization_code') {
      const redirect = codes.get(form.get('code') ?? '');
      if (redirect === undefined || redirect !== form.get('redirect_uri')) {
        return refuse(res, 'invalid_grant', 'invalid authorization code');
      }
      codes.delete(form.get('code') ?? '');
      return issue(res, 'authorization_code', true);
    }
    if (grant === 'refresh_token') {
      if (!refreshTokens.has(form.get('refresh_token') ?? ''))
        return refuse(res, 'invalid_grant', 'expired access/refresh token');
      return issue(res, 'refresh_token', false);
    }
    return refuse(res, 'unsupported_grant_type', 'grant type not supported');
  }

  function rowsOf(object: string): Record<string, unknown>[] {
    if (object === 'Opportunity') return [...opportunities.values()];
    if (object === 'OpportunityStage') return STAGES;
    if (object === 'User') return [...users].map(([Id, Email]) => ({ Id, Email }));
    if (object === 'Organization') return [{ Id: orgId, DefaultCurrencyIsoCode: 'EUR' }];
    if (object === 'OpportunitySplitType') {
      return [
        { Id: REVENUE_TYPE, DeveloperName: 'Revenue', MasterLabel: 'Revenue', SplitField: 'Amount', IsActive: true },
        { Id: '1495g000000OVERLY', DeveloperName: 'Overlay', MasterLabel: 'Overlay', SplitField: null, IsActive: true },
      ];
    }
    if (object === 'OpportunitySplit') return [...splits.values()].flat();
    return [];
  }

  const SPLIT_OBJECTS = new Set(['OpportunitySplit', 'OpportunitySplitType']);
  const SPLIT_FIELDS = ['Id', 'OpportunityId', 'SplitOwnerId', 'SplitPercentage', 'SplitTypeId', 'SystemModstamp'];

  /** A SOQL literal as a comparable value: a quoted string, a datetime (as ms), a boolean, a number. */
  function literal(text: string): unknown {
    const trimmed = text.trim();
    if (/^'.*'$/.test(trimmed)) return trimmed.slice(1, -1).replace(/\\'/g, "'");
    if (/^\d{4}-\d{2}-\d{2}T/.test(trimmed)) return Date.parse(trimmed);
    if (/^(true|false)$/i.test(trimmed)) return trimmed.toLowerCase() === 'true';
    return Number(trimmed);
  }

  /** A field's value for comparison: datetimes as ms. */
  function comparable(row: Record<string, unknown>, field: string): unknown {
    const value = row[field];
    if ((field === 'SystemModstamp' || field === 'LastModifiedDate') && typeof value === 'string') {
      return Date.parse(value.replace('+0000', 'Z'));
    }
    return value;
  }

  /** The WHERE clause as a filter, or null when it is not SOQL this simulator understands. */
  function whereOf(where: string): ((row: Record<string, unknown>) => boolean) | null {
    const tests: Array<(row: Record<string, unknown>) => boolean> = [];
    for (const condition of where.split(/ AND /i)) {
      const inList = /^(\w+) IN \((.*)\)$/i.exec(condition.trim());
      if (inList) {
        const wanted = new Set((inList[2] as string).split(',').map((item) => literal(item)));
        tests.push((row) => wanted.has(comparable(row, inList[1] as string)));
        continue;
      }
      const compare = /^(\w+) (=|>=|>) (.+)$/.exec(condition.trim());
      if (!compare) return null;
      const [, field = '', op, text = ''] = compare;
      const expected = literal(text);
      tests.push((row) => {
        const value = comparable(row, field);
        if (op === '=') return value === expected;
        return op === '>' ? Number(value) > Number(expected) : Number(value) >= Number(expected);
      });
    }
    return (row) => tests.every((test) => test(row));
  }

  function fieldsOf(object: string): string[] {
    if (object === 'Opportunity')
      return [...OPPORTUNITY_FIELDS, ...(simulator.multiCurrency ? ['CurrencyIsoCode'] : [])];
    if (object === 'User') return ['Id', 'Email', 'Name', 'IsActive'];
    if (object === 'OpportunitySplit') return SPLIT_FIELDS;
    if (object === 'OpportunitySplitType') return ['Id', 'DeveloperName', 'MasterLabel', 'SplitField', 'IsActive'];
    return Object.keys(rowsOf(object)[0] ?? { Id: '' });
  }

  /** The SOQL a connector sends, run over the org's records. */
  function soql(text: string, all: boolean): { rows: Record<string, unknown>[] } | { error: string } {
    const match = /^SELECT (.+?) FROM (\w+)(?: WHERE (.+?))?(?: ORDER BY ([\w, ]+?))?(?: LIMIT (\d+))?$/i.exec(
      text.trim(),
    );
    if (!match) return { error: 'MALFORMED_QUERY' };
    const [, selected = '', object = '', where, orderBy, limit] = match;
    if (SPLIT_OBJECTS.has(object) && !simulator.splitsEnabled) {
      return { error: `INVALID_TYPE: sObject type '${object}' is not supported.` };
    }
    const fields = selected.split(',').map((field) => field.trim());
    const known = new Set(fieldsOf(object));
    const unknown = fields.find((field) => !known.has(field));
    if (unknown) return { error: `INVALID_FIELD: No such column '${unknown}' on entity '${object}'` };
    let rows = rowsOf(object).filter((row) => all || row.IsDeleted !== true);
    if (where) {
      const filter = whereOf(where);
      if (filter === null) return { error: 'MALFORMED_QUERY' };
      rows = rows.filter(filter);
    }
    if (orderBy) {
      const keys = orderBy.split(',').map((key) => key.trim());
      rows = [...rows].sort((a, b) => {
        for (const key of keys) {
          const x = String(a[key] ?? '');
          const y = String(b[key] ?? '');
          if (x !== y) return x < y ? -1 : 1;
        }
        return 0;
      });
    }
    if (limit) rows = rows.slice(0, Number(limit));
    return {
      rows: rows.map((row) => ({
        attributes: { type: object, url: `/services/data/v62.0/sobjects/${object}/${String(row.Id)}` },
        ...Object.fromEntries(fields.map((field) => [field, row[field] ?? null])),
      })),
    };
  }

  function page(res: ServerResponse, rows: Record<string, unknown>[], at: number, version: string): true {
    const records = rows.slice(at, at + simulator.pageSize);
    const done = at + simulator.pageSize >= rows.length;
    let nextRecordsUrl: string | undefined;
    if (!done) {
      const locator = `01gSIM${randomBytes(6).toString('hex')}-${at + simulator.pageSize}`;
      cursors.set(locator, { rows, at: at + simulator.pageSize });
      nextRecordsUrl = `/services/data/${version}/query/${locator}`;
    }
    return json(res, 200, { totalSize: rows.length, done, records, ...(nextRecordsUrl ? { nextRecordsUrl } : {}) });
  }

  let held: Array<() => void> | null = null;
  const rest_ = (req: IncomingMessage, res: ServerResponse, requested: URL): true => {
    const waiting = held;
    held = null;
    try {
      return rest(req, res, requested);
    } finally {
      held = waiting;
    }
  };

  function rest(req: IncomingMessage, res: ServerResponse, requested: URL): true {
    if (simulator.unreachable) {
      simulator.dropped += 1;
      req.socket.destroy();
      return true;
    }
    const bearer = /^(?:Bearer|OAuth) (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !sessions.has(bearer)) {
      return json(res, 401, [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
    }
    const route = /^\/services\/data\/(v\d+\.\d)\/(.*)$/.exec(requested.pathname);
    if (!route) return json(res, 404, [{ message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' }]);
    const [, version = '', rest = ''] = route;
    if (rest === 'query' || rest === 'queryAll' || rest === 'query/' || rest === 'queryAll/') {
      const q = requested.searchParams.get('q') ?? '';
      if (held !== null && /\bId IN \(/i.test(q)) {
        // Answered once the test lets it go (a slow org, a process killed while it waits).
        held.push(() => rest_(req, res, requested));
        simulator.heldReads += 1;
        return true;
      }
      const result = soql(q, rest.startsWith('queryAll'));
      if ('error' in result) {
        const [code, message] = result.error.split(': ');
        return json(res, 400, [{ message: message ?? code, errorCode: code }]);
      }
      return page(res, result.rows, 0, version);
    }
    const more = /^query\/(.+)$/.exec(rest);
    if (more) {
      const cursor = cursors.get(more[1] as string);
      if (!cursor) return json(res, 400, [{ message: 'invalid query locator', errorCode: 'INVALID_QUERY_LOCATOR' }]);
      return page(res, cursor.rows, cursor.at, version);
    }
    const describe = /^sobjects\/(\w+)\/describe\/?$/.exec(rest);
    if (describe) {
      const object = describe[1] as string;
      return json(res, 200, { name: object, fields: fieldsOf(object).map((name) => ({ name, type: 'string' })) });
    }
    return json(res, 404, [{ message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' }]);
  }

  const server = createServer((req, res) => {
    route(req, res);
  });
  function route(req: IncomingMessage, res: ServerResponse): true {
    const requested = new URL(req.url ?? '/', url);
    if (req.method === 'POST' && requested.pathname === '/services/oauth2/token') {
      token(req, res).catch(() => json(res, 500, { error: 'server_error' }));
      return true;
    }
    if (req.method === 'GET' && requested.pathname === '/services/oauth2/authorize') {
      const redirect = requested.searchParams.get('redirect_uri') ?? '';
      if (
        requested.searchParams.get('client_id') !== clientId ||
        requested.searchParams.get('response_type') !== 'code'
      ) {
        return refuse(res, 'invalid_client_id', 'client identifier invalid');
      }
      const code = `aPrx${randomBytes(16).toString('base64url')}`;
      codes.set(code, redirect);
      const back = new URL(redirect);
      back.searchParams.set('code', code);
      back.searchParams.set('state', requested.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      res.end();
      return true;
    }
    return rest(req, res, requested);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const simulator: SalesforceSimulator = {
    url,
    clientId,
    clientSecret,
    orgId,
    jwtUsername,
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    grants: [],
    multiCurrency: true,
    pageSize: 2000,
    putOpportunity(id, fields) {
      const at = sfInstant(tick());
      const stage = STAGES.find((found) => found.ApiName === (fields.StageName ?? opportunities.get(id)?.StageName));
      opportunities.set(id, {
        IsDeleted: false,
        ...opportunities.get(id),
        ...fields,
        Id: id,
        IsWon: stage?.IsWon ?? false,
        IsClosed: stage?.IsClosed ?? false,
        LastModifiedDate: at,
        SystemModstamp: at,
      });
    },
    deleteOpportunity(id) {
      const found = opportunities.get(id);
      if (found) opportunities.set(id, { ...found, IsDeleted: true, SystemModstamp: sfInstant(tick()) });
    },
    opportunity(id) {
      return opportunities.get(id);
    },
    hasSession(token) {
      return sessions.has(token);
    },
    putUser(id, email) {
      users.set(id, email);
    },
    splitsEnabled: true,
    unreachable: false,
    dropped: 0,
    putSplits(opportunityId, given) {
      const at = sfInstant(tick());
      splits.set(
        opportunityId,
        given.map((split) => ({
          Id: `0495g${String(splitSeq++).padStart(13, '0')}`,
          OpportunityId: opportunityId,
          SplitOwnerId: split.owner,
          SplitPercentage: split.percentage,
          SplitTypeId: REVENUE_TYPE,
          IsDeleted: false,
          SystemModstamp: at,
        })),
      );
    },
    async consent(authorizeUrl) {
      const answer = await fetch(authorizeUrl, { redirect: 'manual' });
      const back = new URL(answer.headers.get('location') ?? '');
      const code = back.searchParams.get('code') ?? '';
      const state = back.searchParams.get('state') ?? '';
      back.search = '';
      return { redirectUri: back.toString(), code, state };
    },
    expireSessions() {
      sessions = new Set();
    },
    heldReads: 0,
    holdRecordReads() {
      held = [];
      return () => {
        const waiting = held ?? [];
        held = null;
        for (const answer of waiting) answer();
      };
    },
    reset() {
      held = null;
      simulator.heldReads = 0;
      opportunities = new Map();
      users = new Map();
      splits = new Map();
      simulator.splitsEnabled = true;
      simulator.unreachable = false;
      simulator.dropped = 0;
      sessions = new Set();
      cursors.clear();
      codes.clear();
      simulator.grants = [];
      simulator.multiCurrency = true;
      simulator.pageSize = 2000;
      clock = Date.UTC(2026, 0, 1);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return simulator;
}
