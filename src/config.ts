import { resolve } from 'node:path';
import { WINDOW_SECONDS } from './access/rateLimit.ts';
import { RATE_LIMIT_STORES, type RateLimitStoreKind } from './access/rateLimitStore.ts';
import type { DatabaseTimeouts } from './db/availability.ts';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './domain/webhooks/schedule.ts';
import { hasPrefix } from './lib/ids.ts';

// Every setting Quotient reads from the environment, parsed once. The README's configuration table lists them.
export interface Config {
  /** PostgreSQL to use; when absent, an embedded PostgreSQL runs under dataDir. */
  databaseUrl: string | undefined;
  /**
   * A direct connection to DATABASE_URL's database, for the work that needs a session of its own (migrations,
   * the rate-limit lease) when DATABASE_URL goes through a transaction pooler (src/db/pooler.ts).
   */
  databaseDirectUrl: string | undefined;
  dataDir: string;
  host: string;
  port: number;
  logLevel: string;
  /** Validate every response against the contract (tests turn it on; a mismatch becomes a 500). */
  validateResponses: boolean;
  /** Size of the database connection pool of one process. */
  databasePoolSize: number;
  /** QUOTIENT_IMPORT_CHUNK_ROWS: the rows of a `quotient import deals` chunk, one transaction each (day-one.md). */
  importChunkRows: number;
  /** How long a request may wait to connect (or for a free connection), on one statement and on a lock. */
  databaseTimeouts: DatabaseTimeouts;
  /** Seconds a graceful shutdown waits for in-flight requests before closing connections. */
  shutdownGraceSeconds: number;
  webhooks: WebhookSettings;
  rateLimits: RateLimitSettings;
  admin: AdminSettings;
  /** QUOTIENT_SECRET_KEY: the key secrets Quotient must read back are sealed with (src/lib/secretBox.ts). */
  secretKey: Buffer | undefined;
  connectors: ConnectorSettings;
  scenarios: ScenarioSettings;
}

/** Plan scenarios' background work (docs/scenarios.md). */
export interface ScenarioSettings {
  /**
   * QUOTIENT_SCENARIO_LEASE_SECONDS: how long a run's heartbeat (renewed at every batch of reps) holds it (60 unless
   * set): a queued or running scenario with an older one was interrupted, and the next serving process resumes it.
   */
  leaseMs: number;
  /**
   * QUOTIENT_SCENARIO_RETENTION_DAYS: an ended scenario that is not kept is deleted this long after it ended (30
   * unless set).
   */
  retentionMs: number;
}

/** Where the CRMs are (docs/connectors.md): their public addresses unless a test points them at a simulator. */
export interface ConnectorSettings {
  /** QUOTIENT_HUBSPOT_API_URL: HubSpot's API (OAuth token endpoint and CRM APIs). */
  hubspotApiUrl: string;
  /** QUOTIENT_HUBSPOT_AUTHORIZE_URL: HubSpot's authorization page that admins are sent to. */
  hubspotAuthorizeUrl: string;
  /** QUOTIENT_SALESFORCE_LOGIN_URL: where Salesforce connections sign in unless they name their own login URL. */
  salesforceLoginUrl: string;
  /**
   * QUOTIENT_SALESFORCE_PUBSUB_URL: Salesforce's Pub/Sub API, where Change Data Capture is subscribed to
   * (`api.pubsub.salesforce.com:7443` unless set; `off`: no subscriber, Salesforce changes arrive by re-syncs only).
   */
  salesforcePubSubUrl: string | null;
  /**
   * QUOTIENT_SALESFORCE_LEASE_SECONDS: how long a process's hold on a connection's change subscriber lasts unrenewed
   * (60 unless set): how soon another process takes a dead holder's connections over.
   */
  salesforceLeaseMs: number;
  /**
   * QUOTIENT_HUBSPOT_RECONCILE_SECONDS: how often each HubSpot connection's reconciliation poll runs (900 unless set,
   * at least 10): its search by `hs_lastmodifieddate` for what no webhook brought.
   */
  hubspotReconcileMs: number;
  /**
   * QUOTIENT_HUBSPOT_RECONCILE_OVERLAP_SECONDS: how far before the previous poll's start the next one searches (300
   * unless set): HubSpot's search index trails its records by seconds, and the clocks differ.
   */
  hubspotReconcileOverlapMs: number;
  /**
   * QUOTIENT_HUBSPOT_RETRY_WAIT_MAX_SECONDS: the longest one wait for a 429's `Retry-After` inside a sync or poll (10
   * unless set); after 5 waits in a row the sync is left `syncing`, resumed at the next round.
   */
  hubspotRetryWaitMaxMs: number;
  /**
   * QUOTIENT_SALESFORCE_RECONCILE_SECONDS: how often each Salesforce connection's subscriber runs its reconciliation
   * poll (SOQL by `SystemModstamp`, and `OpportunitySplit`), 900 (15 minutes) unless set.
   */
  salesforceReconcileMs: number;
}

/** Where rate-limit counts live (src/access/rateLimitStore.ts). */
export interface RateLimitSettings {
  /**
   * QUOTIENT_RATE_LIMIT_STORE; when unset: `redis` if QUOTIENT_REDIS_URL is set, else `memory` on the embedded
   * database (one process serves it), else `postgres`.
   */
  store: RateLimitStoreKind;
  redisUrl: string | undefined;
  /**
   * QUOTIENT_RATE_LIMIT_WINDOW_SECONDS: the length of a fixed rate window, whole seconds from 1 to 86400; 60 (the
   * spec's requests per minute) when unset. A key's limit counts per window (docs/rate-limits.md).
   */
  windowSeconds: number;
}

/** The admin console's sessions. */
export interface AdminSettings {
  /** A session unused this long ends. */
  sessionIdleMs: number;
  /** A session ends this long after sign-in, however busy. */
  sessionAbsoluteMs: number;
}

/** Outbound webhooks: where they may go and how the delivery worker runs. */
export interface WebhookSettings {
  /** Accept plain http and private, loopback and link-local addresses (tests and local development only). */
  allowPrivateAddresses: boolean;
  /** Run the delivery worker inside `quotient serve` (off when `quotient worker` processes deliver instead). */
  workerInServe: boolean;
  /** The delays before each retry, in milliseconds; one attempt more than there are delays. */
  retryScheduleMs: number[];
  /** How long one attempt may take, connection to response headers. */
  timeoutMs: number;
  /** How often an idle worker looks for due deliveries. */
  pollIntervalMs: number;
  /** Attempts one worker process makes at the same time. */
  concurrency: number;
  /** The orgs whose deliveries this process's worker makes; null for every org (the default). */
  workerOrgIds: string[] | null;
}

/**
 * The settings of a process, from its environment; `overrides` are command-line options that take a variable's
 * place (`quotient serve --port` for PORT).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: { port?: string } = {}): Config {
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  return {
    databaseUrl,
    databaseDirectUrl: nonEmpty(env.QUOTIENT_DIRECT_DATABASE_URL),
    dataDir: resolve(nonEmpty(env.QUOTIENT_DATA_DIR) ?? '.quotient'),
    host: nonEmpty(env.HOST) ?? '0.0.0.0',
    port: portOf(overrides.port ?? env.PORT),
    logLevel: nonEmpty(env.LOG_LEVEL) ?? 'info',
    validateResponses: boolean('QUOTIENT_VALIDATE_RESPONSES', env.QUOTIENT_VALIDATE_RESPONSES, false),
    databasePoolSize: integer('QUOTIENT_DB_POOL_SIZE', env.QUOTIENT_DB_POOL_SIZE, 20, 1, 500),
    importChunkRows: integer('QUOTIENT_IMPORT_CHUNK_ROWS', env.QUOTIENT_IMPORT_CHUNK_ROWS, 10_000, 1, 100_000),
    // A request waits on the database at most the longer of the connect timeout and the statement timeout plus
    // the client's margin (readTimeoutMs): 8 s by default, so a frozen database is answered 503 within 10 s.
    databaseTimeouts: {
      connectMs: integer('QUOTIENT_DB_CONNECT_TIMEOUT_MS', env.QUOTIENT_DB_CONNECT_TIMEOUT_MS, 5_000, 100, 600_000),
      statementMs: integer(
        'QUOTIENT_DB_STATEMENT_TIMEOUT_MS',
        env.QUOTIENT_DB_STATEMENT_TIMEOUT_MS,
        6_000,
        100,
        3_600_000,
      ),
      lockMs: integer('QUOTIENT_DB_LOCK_TIMEOUT_MS', env.QUOTIENT_DB_LOCK_TIMEOUT_MS, 5_000, 100, 3_600_000),
    },
    shutdownGraceSeconds: integer('QUOTIENT_SHUTDOWN_GRACE_SECONDS', env.QUOTIENT_SHUTDOWN_GRACE_SECONDS, 10, 0, 600),
    webhooks: {
      allowPrivateAddresses: boolean('QUOTIENT_WEBHOOKS_ALLOW_PRIVATE', env.QUOTIENT_WEBHOOKS_ALLOW_PRIVATE, false),
      workerInServe: boolean('QUOTIENT_WEBHOOK_WORKER', env.QUOTIENT_WEBHOOK_WORKER, true),
      retryScheduleMs: retrySchedule(env.QUOTIENT_WEBHOOK_RETRY_SCHEDULE),
      timeoutMs: integer('QUOTIENT_WEBHOOK_TIMEOUT_SECONDS', env.QUOTIENT_WEBHOOK_TIMEOUT_SECONDS, 15, 1, 60) * 1000,
      pollIntervalMs: integer('QUOTIENT_WEBHOOK_POLL_MS', env.QUOTIENT_WEBHOOK_POLL_MS, 500, 10, 60_000),
      concurrency: integer('QUOTIENT_WEBHOOK_CONCURRENCY', env.QUOTIENT_WEBHOOK_CONCURRENCY, 10, 1, 200),
      workerOrgIds: orgList('QUOTIENT_WEBHOOK_ORGS', env.QUOTIENT_WEBHOOK_ORGS),
    },
    rateLimits: rateLimitSettings(env, databaseUrl === undefined),
    secretKey: secretKey(env.QUOTIENT_SECRET_KEY),
    scenarios: {
      leaseMs: integer('QUOTIENT_SCENARIO_LEASE_SECONDS', env.QUOTIENT_SCENARIO_LEASE_SECONDS, 60, 1, 3600) * 1000,
      retentionMs:
        integer('QUOTIENT_SCENARIO_RETENTION_DAYS', env.QUOTIENT_SCENARIO_RETENTION_DAYS, 30, 1, 3650) * 86_400_000,
    },
    connectors: {
      hubspotApiUrl: nonEmpty(env.QUOTIENT_HUBSPOT_API_URL) ?? 'https://api.hubapi.com',
      hubspotAuthorizeUrl: nonEmpty(env.QUOTIENT_HUBSPOT_AUTHORIZE_URL) ?? 'https://app.hubspot.com/oauth/authorize',
      salesforceLoginUrl: nonEmpty(env.QUOTIENT_SALESFORCE_LOGIN_URL) ?? 'https://login.salesforce.com',
      salesforcePubSubUrl: pubSubUrl(env.QUOTIENT_SALESFORCE_PUBSUB_URL),
      salesforceLeaseMs:
        integer('QUOTIENT_SALESFORCE_LEASE_SECONDS', env.QUOTIENT_SALESFORCE_LEASE_SECONDS, 60, 1, 3600) * 1000,
      hubspotReconcileMs:
        integer('QUOTIENT_HUBSPOT_RECONCILE_SECONDS', env.QUOTIENT_HUBSPOT_RECONCILE_SECONDS, 900, 10, 86_400) * 1000,
      hubspotReconcileOverlapMs:
        integer(
          'QUOTIENT_HUBSPOT_RECONCILE_OVERLAP_SECONDS',
          env.QUOTIENT_HUBSPOT_RECONCILE_OVERLAP_SECONDS,
          300,
          0,
          86_400,
        ) * 1000,
      hubspotRetryWaitMaxMs:
        integer('QUOTIENT_HUBSPOT_RETRY_WAIT_MAX_SECONDS', env.QUOTIENT_HUBSPOT_RETRY_WAIT_MAX_SECONDS, 10, 1, 600) *
        1000,
      salesforceReconcileMs:
        integer(
          'QUOTIENT_SALESFORCE_RECONCILE_SECONDS',
          env.QUOTIENT_SALESFORCE_RECONCILE_SECONDS,
          900,
          1,
          7 * 24 * 3600,
        ) * 1000,
    },
    admin: {
      sessionIdleMs:
        integer('QUOTIENT_ADMIN_SESSION_IDLE_MINUTES', env.QUOTIENT_ADMIN_SESSION_IDLE_MINUTES, 30, 1, 1440) * 60_000,
      sessionAbsoluteMs:
        integer('QUOTIENT_ADMIN_SESSION_MAX_HOURS', env.QUOTIENT_ADMIN_SESSION_MAX_HOURS, 12, 1, 720) * 3_600_000,
    },
  };
}

/** PORT: where `quotient serve` listens (3000 when unset); the demo's next steps name it too. */
export function portOf(raw: string | undefined = process.env.PORT): number {
  return integer('PORT', raw, 3000, 0, 65535);
}

/** LOG_LEVEL for a CLI command: quieter than the server's default, warnings and errors only unless it is set. */
export function cliLogLevel(env: NodeJS.ProcessEnv = process.env): string {
  return nonEmpty(env.LOG_LEVEL) ?? 'warn';
}

/** Whether npm launched this process (`npm start`, `npx quotient`): npm sets npm_command for what it runs. */
export function launchedByNpm(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.npm_command !== undefined;
}

/**
 * A secret handed over in an environment variable the command line names (`--client-secret-env NAME`), kept out
 * of shell history and process lists; undefined when the variable is unset or empty.
 */
export function secretFromEnvironment(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return nonEmpty(env[name]);
}

function rateLimitSettings(env: NodeJS.ProcessEnv, embeddedDatabase: boolean): RateLimitSettings {
  const redisUrl = nonEmpty(env.QUOTIENT_REDIS_URL);
  const named = nonEmpty(env.QUOTIENT_RATE_LIMIT_STORE);
  if (named !== undefined && !(RATE_LIMIT_STORES as readonly string[]).includes(named)) {
    throw new Error(`QUOTIENT_RATE_LIMIT_STORE must be one of ${RATE_LIMIT_STORES.join(', ')}, got "${named}"`);
  }
  const store =
    (named as RateLimitStoreKind | undefined) ?? (redisUrl ? 'redis' : embeddedDatabase ? 'memory' : 'postgres');
  if (store === 'redis' && !redisUrl) throw new Error('QUOTIENT_RATE_LIMIT_STORE=redis needs QUOTIENT_REDIS_URL');
  return { store, redisUrl, windowSeconds: rateWindowSeconds(env.QUOTIENT_RATE_LIMIT_WINDOW_SECONDS) };
}

const MAX_RATE_WINDOW_SECONDS = 86_400;

function rateWindowSeconds(raw: string | undefined): number {
  const named = nonEmpty(raw);
  if (named === undefined) return WINDOW_SECONDS;
  const seconds = /^\d+$/.test(named.trim()) ? Number(named.trim()) : Number.NaN;
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > MAX_RATE_WINDOW_SECONDS) {
    throw new Error(
      `QUOTIENT_RATE_LIMIT_WINDOW_SECONDS must be a whole number of seconds from 1 to ${MAX_RATE_WINDOW_SECONDS}, got "${named}"`,
    );
  }
  return seconds;
}

function secretKey(raw: string | undefined): Buffer | undefined {
  if (nonEmpty(raw) === undefined) return undefined;
  const key = Buffer.from((raw as string).trim(), 'base64');
  if (key.length !== 32) throw new Error('QUOTIENT_SECRET_KEY must be 32 bytes in base64 (openssl rand -base64 32)');
  return key;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function boolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (nonEmpty(raw) === undefined) return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

/** A comma-separated list of org ids (`org_…`); unset or empty means every org. */
function orgList(name: string, raw: string | undefined): string[] | null {
  if (nonEmpty(raw) === undefined) return null;
  const ids = (raw as string).split(',').map((id) => id.trim());
  const wrong = ids.find((id) => !hasPrefix(id, 'org'));
  if (wrong !== undefined) throw new Error(`${name} must be comma-separated org ids (org_...), got "${wrong}"`);
  return ids;
}

function retrySchedule(raw: string | undefined): number[] {
  try {
    return parseRetrySchedule(nonEmpty(raw) ?? DEFAULT_RETRY_SCHEDULE);
  } catch (error) {
    throw new Error(`QUOTIENT_WEBHOOK_RETRY_SCHEDULE must be comma-separated delays: ${(error as Error).message}`);
  }
}

function integer(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (nonEmpty(raw) === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function pubSubUrl(value: string | undefined): string | null {
  const given = nonEmpty(value);
  if (given === undefined) return 'api.pubsub.salesforce.com:7443';
  return given.toLowerCase() === 'off' ? null : given;
}
