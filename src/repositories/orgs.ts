import type { ExchangeRate } from '../domain/earnings/exchange.ts';
import { newId } from '../lib/ids.ts';
import type { PlanState } from './ledgerPlans.ts';
import { named, prismaOf, sql, type Transaction } from './transaction.ts';

export interface OrgRecord {
  id: string;
  name: string;
  default_currency: string;
  created_at: Date;
}

const ORG_FIELDS = { id: true, name: true, default_currency: true, created_at: true } as const;

/** The change-feed writer slots every org has (src/repositories/feedWriters.ts). */
export const FEED_WRITER_SLOTS = 32;

/**
 * A new org, with its change-feed writer slots in the same transaction (Prisma's nested write): a slot created later
 * by a writer would be invisible to readers until that writer commits, which is what a slot must not be. It was a
 * trigger on orgs; Citus refuses to distribute a table with triggers (docs/scaling.md).
 */
export async function create(tx: Transaction, name: string, defaultCurrency?: string): Promise<OrgRecord> {
  return prismaOf(tx).org.create({
    data: {
      id: newId('org'),
      name,
      ...(defaultCurrency === undefined ? {} : { default_currency: defaultCurrency }),
      feed_writer_slots: {
        createMany: { data: Array.from({ length: FEED_WRITER_SLOTS }, (_, index) => ({ slot: index + 1 })) },
      },
    },
    select: ORG_FIELDS,
  });
}

/**
 * Bumps the org's configuration version (what a deal event reads of the org: its plans in force, webhook endpoints,
 * exchange rates, stage lists and default currency; src/services/orgConfig.ts), in the transaction of the change:
 * every write of those calls it (it was a trigger; Citus refuses to distribute a table with triggers).
 */
export async function bumpConfigVersion(tx: Transaction, orgId: string): Promise<void> {
  await tx.query(
    named('orgs_bump_config_version', {
      text: 'UPDATE orgs SET config_version = config_version + 1 WHERE id = $1',
      values: [orgId],
    }),
  );
}

export async function list(tx: Transaction): Promise<OrgRecord[]> {
  return prismaOf(tx).org.findMany({ orderBy: { id: 'asc' }, select: ORG_FIELDS });
}

/**
 * Sets the default currency in one statement, only while the org has no deals and no plans (whose meaning it
 * fixes): `in_use` when it has some and the currency differs, `unchanged` when it is already this one.
 */
export async function setDefaultCurrencyIfUnused(
  tx: Transaction,
  orgId: string,
  currency: string,
): Promise<'changed' | 'unchanged' | 'in_use'> {
  const current = await defaultCurrency(tx, orgId);
  if (current === currency) return 'unchanged';
  const updated = await prismaOf(tx).$executeRaw`
    UPDATE orgs SET default_currency = ${currency}, config_version = config_version + 1
    WHERE id = ${orgId}
      AND NOT EXISTS (SELECT 1 FROM deals WHERE org_id = ${orgId})
      AND NOT EXISTS (SELECT 1 FROM plans WHERE org_id = ${orgId})`;
  return updated === 1 ? 'changed' : 'in_use';
}

/** The org's default currency (ISO 4217); null when there is no such org. */
export async function defaultCurrency(tx: Transaction, orgId: string): Promise<string | null> {
  const org = await prismaOf(tx).org.findUnique({ where: { id: orgId }, select: { default_currency: true } });
  return org?.default_currency ?? null;
}

export async function find(tx: Transaction, orgId: string): Promise<OrgRecord | null> {
  return prismaOf(tx).org.findUnique({ where: { id: orgId }, select: ORG_FIELDS });
}

/**
 * What a deal event reads of its org besides the stage lists (which come with the event's first statement): the
 * plans in force and the webhook endpoints, as of `version` (orgs.config_version, bumped by `bumpConfigVersion` in
 * the transaction of every change to them).
 */
export interface OrgConfig {
  version: number;
  /** Active plans with the version in force, oldest plan first. */
  plansInForce: PlanState[];
  /** Enabled endpoints that are not removed, by id; `events` empty means every kind. */
  endpoints: Array<{ id: string; events: string[] }>;
  /** ISO 4217: the currency of deals and plans that name none. */
  defaultCurrency: string;
  /** Every exchange rate of the org (a few per pair and month at most), for converting deals to plans' currencies. */
  rates: ExchangeRate[];
}

// One statement, so one snapshot: the version and what it stands for are read together. Each table names the org's
// parameter: on Citus, a subquery bound only by `o.id` (a correlation) runs on every shard.
const LOAD_CONFIG = `
  SELECT o.config_version AS version,
         COALESCE((SELECT json_agg(json_build_object('plan_id', p.id, 'status', p.status,
                                                     'version_id', p.current_version_id)
                                   ORDER BY p.created_at, p.id)
                   FROM plans p
                   WHERE p.org_id = $1 AND p.status = 'active' AND p.current_version_id IS NOT NULL), '[]') AS plans,
         COALESCE((SELECT json_agg(json_build_object('id', w.id, 'events', w.events) ORDER BY w.id)
                   FROM webhook_endpoints w
                   WHERE w.org_id = $1 AND w.enabled AND w.removed_at IS NULL), '[]') AS endpoints,
         o.default_currency,
         COALESCE((SELECT json_agg(json_build_object('from_currency', r.from_currency, 'to_currency', r.to_currency,
                                                     'effective_on', to_char(r.effective_on, 'YYYY-MM-DD'),
                                                     'rate', r.rate)
                                   ORDER BY r.from_currency, r.to_currency, r.effective_on)
                   FROM exchange_rates r WHERE r.org_id = $1), '[]') AS rates
  FROM orgs o WHERE o.id = $1`;

/** The org's configuration as a deal event reads it (plain SQL, in the event's transaction). */
export async function loadConfig(tx: Transaction, orgId: string): Promise<OrgConfig> {
  const rows = await tx.query<{
    version: number;
    plans: PlanState[];
    endpoints: Array<{ id: string; events: string[] }>;
    default_currency: string;
    rates: ExchangeRate[];
  }>(named('org_config_load', { text: LOAD_CONFIG, values: [orgId] }));
  const row = rows[0];
  if (!row) throw new Error(`org ${orgId} does not exist`);
  return {
    version: row.version,
    plansInForce: row.plans,
    endpoints: row.endpoints,
    defaultCurrency: row.default_currency,
    rates: row.rates,
  };
}

/** The first of the org's won stages: the stage a deal estimated as won gets. */
export async function firstWonStage(tx: Transaction, orgId: string): Promise<string> {
  const rows = await tx.query<{ stage: string | null }>(
    sql`SELECT won_stages[1] AS stage FROM orgs WHERE id = ${orgId}`,
  );
  return rows[0]?.stage ?? 'closed_won';
}

/** How the org's statements are signed off and its periods paid (docs/pay-workflow.md). */
export interface PaySettings {
  statement_approval_policy: string;
  four_eyes_payment: boolean;
  pay_waits_for_acceptance: boolean;
}

/** The org's pay settings; null when there is no such org. */
export async function paySettings(tx: Transaction, orgId: string): Promise<PaySettings | null> {
  const rows = await tx.query<PaySettings>(
    sql`SELECT statement_approval_policy, four_eyes_payment, pay_waits_for_acceptance FROM orgs WHERE id = ${orgId}`,
  );
  return rows[0] ?? null;
}

export async function setPaySettings(
  tx: Transaction,
  orgId: string,
  settings: Partial<PaySettings>,
): Promise<PaySettings> {
  const rows = await tx.query<PaySettings>(
    sql`UPDATE orgs SET statement_approval_policy = COALESCE(${settings.statement_approval_policy ?? null}::text, statement_approval_policy),
               four_eyes_payment = COALESCE(${settings.four_eyes_payment ?? null}::boolean, four_eyes_payment),
               pay_waits_for_acceptance = COALESCE(${settings.pay_waits_for_acceptance ?? null}::boolean, pay_waits_for_acceptance)
        WHERE id = ${orgId} RETURNING statement_approval_policy, four_eyes_payment, pay_waits_for_acceptance`,
  );
  return rows[0] as PaySettings;
}

/** The org's own terms in its plan documents (docs/plan-documents.md, "Your company's terms"); empty: none. */
export interface PlanDocumentTermsRecord {
  clawback: string;
  leaver: string;
  governing: string;
}

/** The org's plan document terms; null when there is no such org. */
export async function planDocumentTerms(tx: Transaction, orgId: string): Promise<PlanDocumentTermsRecord | null> {
  const rows = await tx.query<PlanDocumentTermsRecord>(
    sql`SELECT plan_terms_clawback AS clawback, plan_terms_leaver AS leaver, plan_terms_governing AS governing
        FROM orgs WHERE id = ${orgId}`,
  );
  return rows[0] ?? null;
}

/** Sets the terms given; a term left out keeps its text. Null when there is no such org. */
export async function setPlanDocumentTerms(
  tx: Transaction,
  orgId: string,
  terms: Partial<PlanDocumentTermsRecord>,
): Promise<PlanDocumentTermsRecord | null> {
  const rows = await tx.query<PlanDocumentTermsRecord>(
    sql`UPDATE orgs SET plan_terms_clawback = COALESCE(${terms.clawback ?? null}::text, plan_terms_clawback),
               plan_terms_leaver = COALESCE(${terms.leaver ?? null}::text, plan_terms_leaver),
               plan_terms_governing = COALESCE(${terms.governing ?? null}::text, plan_terms_governing)
        WHERE id = ${orgId}
        RETURNING plan_terms_clawback AS clawback, plan_terms_leaver AS leaver, plan_terms_governing AS governing`,
  );
  return rows[0] ?? null;
}

/** How the org's rep tokens may be used from browsers (CORS) and how often (docs/rep-tokens.md). */
export interface RepAccessRecord {
  cors_allowed_origins: string[];
  rep_rate_limit_per_minute: number;
}

export async function repAccess(tx: Transaction, orgId: string): Promise<RepAccessRecord | null> {
  const rows = await tx.query<{ cors_allowed_origins: string[] | null; rep_rate_limit_per_minute: number }>(
    sql`SELECT cors_allowed_origins, rep_rate_limit_per_minute FROM orgs WHERE id = ${orgId}`,
  );
  const row = rows[0];
  return row ? { ...row, cors_allowed_origins: row.cors_allowed_origins ?? [] } : null;
}

export async function setRepAccess(
  tx: Transaction,
  orgId: string,
  changes: { corsAllowedOrigins?: readonly string[]; repRateLimitPerMinute?: number },
): Promise<void> {
  await tx.query(
    sql`UPDATE orgs SET
          cors_allowed_origins = COALESCE(${changes.corsAllowedOrigins ?? null}::text[], cors_allowed_origins),
          rep_rate_limit_per_minute = COALESCE(${changes.repRateLimitPerMinute ?? null}::int, rep_rate_limit_per_minute)
        WHERE id = ${orgId}`,
  );
}

/** Whether some org lets browsers at this origin use its rep tokens (the CORS preflight's question). */
export async function anyAllowsOrigin(tx: Transaction, origin: string): Promise<boolean> {
  const rows = await tx.query(
    named('orgs_any_allows_origin', {
      text: 'SELECT 1 AS allowed FROM orgs WHERE $1 = ANY(cors_allowed_origins) LIMIT 1',
      values: [origin],
    }),
  );
  return rows.length > 0;
}
