import { AuditLogReader } from './audit/reader.ts';
import type { Config } from './config.ts';
import type { Database } from './db/prisma.ts';
import { secretBox, secretKeySource } from './lib/secretBox.ts';
import * as adjustmentRecords from './repositories/adjustments.ts';
import { poolTransactor, prismaTransactor, type SqlPool } from './repositories/transaction.ts';
import { AccountingBooks } from './services/accounting.ts';
import { AdjustmentReader } from './services/adjustmentReader.ts';
import { AdjustmentAdmin } from './services/adjustments.ts';
import { AdminAccounts, AdminSessions } from './services/adminIdentity.ts';
import { EarningsRecompute, type RecomputeProgressReport } from './services/adminRecompute.ts';
import { StatementApprovals } from './services/approvals.ts';
import { ConnectionAdmin } from './services/connectors/connectionAdmin.ts';
import { HubSpotPoller } from './services/connectors/hubspotPoll.ts';
import { HubSpotSync } from './services/connectors/hubspotSync.ts';
import { HubSpotWebhooks } from './services/connectors/hubspotWebhooks.ts';
import { SalesforceCdc } from './services/connectors/salesforceCdc.ts';
import { SalesforceSync } from './services/connectors/salesforceSync.ts';
import type { DealChangeListener } from './services/dealChanges.ts';
import { dealsChanged } from './services/dealChanges.ts';
import { DealEventBatch } from './services/dealEventBatch.ts';
import { DealImport } from './services/dealImport.ts';
import { DealReader } from './services/deals.ts';
import { Demo } from './services/demo.ts';
import { EarningsEngine } from './services/earnings/ledgerKeeper.ts';
import { EarningReader } from './services/earnings/reader.ts';
import { EarningsStream } from './services/earningsStream.ts';
import { DealEstimator } from './services/estimates.ts';
import { ExchangeRateChange } from './services/exchangeRateChange.ts';
import { ExchangeRateService } from './services/exchangeRates.ts';
import { DealIngestion } from './services/ingestion.ts';
import { InquiryDesk } from './services/inquiries.ts';
import { KeyAdmin } from './services/keys.ts';
import { OrgAdmin } from './services/orgs.ts';
import { PaymentDesk } from './services/payments.ts';
import { PayoutReader } from './services/payouts.ts';
import { PendingEvaluations } from './services/pendingEvaluations.ts';
import type { PeriodChangeListener } from './services/periodChanges.ts';
import { PeriodAdmin } from './services/periods.ts';
import { PlanAcceptances } from './services/planAcceptances.ts';
import { PlanDocuments } from './services/planDocuments.ts';
import { PlanRollout } from './services/planRollout.ts';
import { PlanAdmin, PlanHistory, PlanReader } from './services/plans.ts';
import { PortalAccessAdmin } from './services/portalAccess.ts';
import { PortalSignIn } from './services/portalSignIn.ts';
import { QuotaAdmin } from './services/quotas.ts';
import { RepAccessAdmin } from './services/repAccess.ts';
import { RepDepartures } from './services/repDepartures.ts';
import { RepHierarchyAdmin } from './services/repHierarchy.ts';
import { RepNames } from './services/repNames.ts';
import { RepSessions } from './services/repSessions.ts';
import { RepReader } from './services/reps.ts';
import { RepTokens } from './services/repTokens.ts';
import { PlanScenarios } from './services/scenarios.ts';
import { ScimProvisioning } from './services/scimProvisioning.ts';
import { SignOff } from './services/signOff.ts';
import { StatementReader } from './services/statements.ts';
import { UserReader } from './services/users.ts';
import { withDealWebhooks, withPeriodWebhooks } from './services/webhookAnnouncements.ts';
import { WebhookAdmin } from './services/webhooks.ts';

// The composition root: the one place where services are built, each once per process, from the open database,
// its pool and the configuration. `quotient serve` (src/main.ts) hands the public API's services and the admin
// use cases to the app; the admin commands (src/commandServices.ts `withAdminServices`) hand the admin use cases to the
// command that runs; the tests, the bench and the scripts compose theirs here too. Handlers and commands only call
// them: building a service anywhere else is refused by test/unit/architecture.test.ts.

export interface CompositionInput {
  db: Database;
  /**
   * The `pg` pool deal events, the public API's reads and recomputes run on: the server's deals pool; the CLI's
   * own small pool, which connects only when a command needs it.
   */
  pool: SqlPool;
  config: Config;
  recompute: {
    /** Reps recomputed at once, each in its own transaction: the pool needs one connection more. */
    concurrency: number;
    /** A progress report per recompute (the CLI's bar on a terminal). */
    progress?: () => RecomputeProgressReport | undefined;
  };
  /**
   * The clock of sessions, sign-in links, plan documents and acceptances, and the statements' today (tests move it to
   * expire sessions, links and throttle windows, or to read a statement as of a day).
   */
  now?: () => Date;
  /**
   * In place of the earnings engine as the deals' or the periods' change listener, still wrapped in their webhooks:
   * for tests that watch a listener, or take the ledger out of what they test. The periods' may also be built
   * around the engine's own (a function handed it), for tests that slow the ledger's moves down.
   */
  listeners?: {
    deals?: DealChangeListener;
    periods?: PeriodChangeListener | ((engine: PeriodChangeListener) => PeriodChangeListener);
  };
}

/** What the public API serves with. */
export interface ApiServices {
  ingestion: DealIngestion;
  dealEventBatch: DealEventBatch;
  dealReader: DealReader;
  earningReader: EarningReader;
  planReader: PlanReader;
  planDocuments: PlanDocuments;
  userReader: UserReader;
  statementReader: StatementReader;
  approvals: StatementApprovals;
  payoutReader: PayoutReader;
  adjustmentReader: AdjustmentReader;
  estimator: DealEstimator;
  earningsStream: EarningsStream;
  repTokens: RepTokens;
  /** The rep's side of inquiries (the same instance as the admins'). */
  inquiries: InquiryDesk;
  /** Reps accepting plan versions (the same instance as the admins'). */
  planAcceptances: PlanAcceptances;
  /** The customer's payments against deals, evaluated as deal events are. */
  payments: PaymentDesk;
}

/** The admin use cases, shared by the admin API and the admin commands. Each takes its actor per call. */
export interface AdminServices {
  sessions: AdminSessions;
  admins: AdminAccounts;
  orgs: OrgAdmin;
  keys: KeyAdmin;
  plans: PlanRollout;
  /** Plan files applied and archived with the listener the caller gives: PlanRollout's, or a test's. */
  planAdmin: PlanAdmin;
  planHistory: PlanHistory;
  planDocuments: PlanDocuments;
  periods: PeriodAdmin;
  /** The periods' sign-off boards and their reminders (docs/pay-workflow.md#the-sign-off-board). */
  signOff: SignOff;
  adjustments: AdjustmentAdmin;
  approvals: StatementApprovals;
  recompute: EarningsRecompute;
  exchangeRates: ExchangeRateService;
  exchangeRateChange: ExchangeRateChange;
  repHierarchy: RepHierarchyAdmin;
  /** Reps' quota tables and start dates (docs/quotas.md). */
  quotas: QuotaAdmin;
  reps: RepReader;
  repDepartures: RepDepartures;
  /** Reps provisioned by identity providers' SCIM clients (docs/sso.md#provisioning-with-scim). */
  scimProvisioning: ScimProvisioning;
  /** Reps' display names, set by admins (the portal's sign-in shares the instance). */
  repNames: RepNames;
  webhooks: WebhookAdmin;
  audit: AuditLogReader;
  demo: Demo;
  dealImport: DealImport;
  accounting: AccountingBooks;
  portalAccess: PortalAccessAdmin;
  /** CRM connections and their background syncs (docs/connectors.md); closed with the process. */
  connections: ConnectionAdmin;
  /** HubSpot's webhooks to the connections. */
  hubspotWebhooks: HubSpotWebhooks;
  repAccess: RepAccessAdmin;
  inquiries: InquiryDesk;
  planAcceptances: PlanAcceptances;
  /** Plan scenarios over closed history, run by this process's scenario worker (docs/scenarios.md). */
  scenarios: PlanScenarios;
}

/** What the rep portal's sign-in and sessions run on. */
export interface PortalServices {
  signIn: PortalSignIn;
  sessions: RepSessions;
  /** The same service as the API's: the portal's pages call /v1 with rep tokens it mints. */
  repTokens: RepTokens;
}

export interface Services {
  api: ApiServices;
  admin: AdminServices;
  portal: PortalServices;
}

export function composeServices(input: CompositionInput): Services {
  const { config } = input;
  // The transaction port each service runs on: Prisma's for the admin use cases, the `pg` pool's for the deal
  // pipeline, the public API's reads and recomputes (docs/architecture.md, "Persistence").
  const db = prismaTransactor(input.db);
  const pool = poolTransactor(input.pool);
  // One engine per process: it caches plan versions, which never change once written.
  const engine = new EarningsEngine();
  // Earnings are evaluated inside each event's transaction, so a read after the response sees them; an estimate
  // rehearses an event through the same pipeline and rolls it back.
  // An import's chunks announce their deals' webhooks but leave the earnings to one evaluation after the last chunk
  // (PendingEvaluations), which a listener given in the engine's place takes as a batch's changes.
  const dealListener = input.listeners?.deals;
  const pendingEvaluations = new PendingEvaluations(
    pool,
    dealListener
      ? (tx, changes) => dealsChanged(dealListener, tx, changes)
      : (tx, changes) => engine.evaluateDeferred(tx, changes),
  );
  const ingestion = new DealIngestion(
    pool,
    withDealWebhooks(dealListener ?? engine),
    withDealWebhooks(pendingEvaluations.recorder),
  );
  const dealEventBatch = new DealEventBatch(ingestion);
  const dealImport = new DealImport(db, pool, dealEventBatch, pendingEvaluations, config.importChunkRows);
  // A status change sets off, in its transaction, the period.locked / period.paid webhooks, then the ledger's moves.
  const now = input.now;
  const statementReader = new StatementReader(pool, now ? { today: () => now().toISOString().slice(0, 10) } : {});
  const approvals = new StatementApprovals(db, statementReader);
  const recompute = new EarningsRecompute(db, engine, {
    pool,
    concurrency: input.recompute.concurrency,
    ...(input.recompute.progress ? { progress: input.recompute.progress } : {}),
  });
  const payoutReader = new PayoutReader(db.statements);
  const periods = new PeriodAdmin(
    db,
    withPeriodWebhooks(periodListenerOf(input.listeners?.periods, engine)),
    payoutReader,
    approvals,
    { recompute, ...(now ? { today: () => now().toISOString().slice(0, 10) } : {}) },
  );
  const keys = new KeyAdmin(db);
  const planAdmin = new PlanAdmin(db);
  const planHistory = new PlanHistory(db);
  const exchangeRates = new ExchangeRateService(db);
  const clock = input.now ? { now: input.now } : {};
  const planDocuments = new PlanDocuments(db, clock);
  const planAcceptances = new PlanAcceptances(db, planDocuments, clock);
  const plans = new PlanRollout(planAdmin, planHistory, recompute, planAcceptances);
  // Console and portal sessions live by the same idle and absolute limits.
  const sessionSettings = { idleMs: config.admin.sessionIdleMs, absoluteMs: config.admin.sessionAbsoluteMs };
  const adminSessions = new AdminSessions(db, { settings: sessionSettings, ...clock });
  const repSessions = new RepSessions(db, { settings: sessionSettings, ...clock });
  const repNames = new RepNames(db);
  const repDepartures = new RepDepartures(db, { ...clock, recompute });
  const repTokens = new RepTokens(pool, clock);
  const secrets = secretBox(
    secretKeySource({
      key: config.secretKey,
      embeddedDataDir: config.databaseUrl === undefined ? config.dataDir : undefined,
    }),
  );
  const salesforceSync = new SalesforceSync(db, dealEventBatch, {
    secrets,
    loginUrl: config.connectors.salesforceLoginUrl,
    ...clock,
  });
  const pubSubUrl = config.connectors.salesforcePubSubUrl;
  const hubspotSync = new HubSpotSync(db, dealEventBatch, {
    secrets,
    endpoints: { apiUrl: config.connectors.hubspotApiUrl, authorizeUrl: config.connectors.hubspotAuthorizeUrl },
    patience: { retries: 5, maxWaitMs: config.connectors.hubspotRetryWaitMaxMs },
    reconcileOverlapMs: config.connectors.hubspotReconcileOverlapMs,
    ...clock,
  });
  const connections = new ConnectionAdmin(db, {
    hubspot: hubspotSync,
    poller: new HubSpotPoller(db, hubspotSync, {
      leaseMs: config.connectors.salesforceLeaseMs,
      reconcileMs: config.connectors.hubspotReconcileMs,
      ...clock,
    }),
    salesforce: salesforceSync,
    ...(pubSubUrl === null
      ? {}
      : {
          cdc: new SalesforceCdc(db, dealEventBatch, salesforceSync, {
            pubSubUrl,
            leaseMs: config.connectors.salesforceLeaseMs,
            reconcileMs: config.connectors.salesforceReconcileMs,
            ...clock,
          }),
        }),
  });
  // A resolution's adjustment link must name an adjustment of the org (InquiryDesk).
  const inquiries = new InquiryDesk(db, { adjustments: { exists: adjustmentRecords.exists } });
  return {
    api: {
      ingestion,
      dealEventBatch,
      dealReader: new DealReader(pool),
      earningReader: new EarningReader(pool),
      planReader: new PlanReader(db),
      planDocuments,
      userReader: new UserReader(pool),
      statementReader,
      approvals,
      payoutReader: new PayoutReader(pool.statements),
      adjustmentReader: new AdjustmentReader(pool.statements),
      estimator: new DealEstimator(ingestion),
      earningsStream: new EarningsStream(pool),
      repTokens,
      inquiries,
      planAcceptances,
      payments: new PaymentDesk(pool, withDealWebhooks(dealListener ?? engine)),
    },
    admin: {
      sessions: adminSessions,
      admins: new AdminAccounts(db),
      orgs: new OrgAdmin(db),
      keys,
      plans,
      planAdmin,
      planHistory,
      planDocuments,
      periods,
      signOff: new SignOff(db, approvals, payoutReader, clock),
      adjustments: new AdjustmentAdmin(db, recompute),
      approvals,
      recompute,
      exchangeRates,
      exchangeRateChange: new ExchangeRateChange(exchangeRates, recompute),
      repHierarchy: new RepHierarchyAdmin(db, recompute, pool, planAcceptances),
      quotas: new QuotaAdmin(db, recompute, pool, planAcceptances),
      reps: new RepReader(db),
      repDepartures,
      scimProvisioning: new ScimProvisioning(db, { departures: repDepartures, names: repNames, ...clock }),
      repNames,
      webhooks: new WebhookAdmin(db, { allowPrivateAddresses: config.webhooks.allowPrivateAddresses }),
      audit: new AuditLogReader(db),
      demo: new Demo(db, { keys, plans, ingestion, periods, dealImport }),
      scenarios: new PlanScenarios(db, pool, plans, {
        leaseMs: config.scenarios.leaseMs,
        retentionMs: config.scenarios.retentionMs,
        ...(now ? { today: () => now().toISOString().slice(0, 10), now } : {}),
      }),
      dealImport,
      accounting: new AccountingBooks(db, input.now ? { now: input.now } : {}),
      portalAccess: new PortalAccessAdmin(db, { secrets, ...clock }),
      connections,
      hubspotWebhooks: new HubSpotWebhooks(connections, clock),
      repAccess: new RepAccessAdmin(db),
      inquiries,
      planAcceptances,
    },
    portal: {
      signIn: new PortalSignIn(db, { repSessions, adminSessions, repNames, secrets, ...clock }),
      sessions: repSessions,
      repTokens,
    },
  };
}

/** The periods' change listener: the engine, one in its place, or one built around it. */
function periodListenerOf(
  given: PeriodChangeListener | ((engine: PeriodChangeListener) => PeriodChangeListener) | undefined,
  engine: PeriodChangeListener,
): PeriodChangeListener {
  if (given === undefined) return engine;
  return typeof given === 'function' ? given(engine) : given;
}
