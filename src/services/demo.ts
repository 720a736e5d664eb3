import { readFile } from 'node:fs/promises';
import { parseDealEvent } from '../domain/deals/event.ts';
import type { ImportRow } from '../domain/imports/rows.ts';
import * as earningsOverview from '../repositories/earningsOverview.ts';
import * as orgs from '../repositories/orgs.ts';
import type { Transactor } from '../repositories/transaction.ts';
import type { DealImport, ImportSummary } from './dealImport.ts';
import type { DealIngestion } from './ingestion.ts';
import type { KeyAdmin } from './keys.ts';
import type { PeriodAdmin } from './periods.ts';
import type { PlanRollout } from './planRollout.ts';

// `quotient demo`: an org with a key, the example plan (examples/plans/core-ae.yaml) and two months of deals for three reps, sent
// through the same ingestion service as POST /v1/deals/events; the first month locked and paid. Running it again
// with the same org name reuses the org: the plan is unchanged, every event replays (same dedup keys), the period
// is already locked and paid; only a new key is made (keys are shown once).

export const DEMO_ORG_NAME = 'Quotient demo';
const EXAMPLE_PLAN = new URL('../../examples/plans/core-ae.yaml', import.meta.url);

export interface DemoResult {
  org: { id: string; name: string; reused: boolean };
  key: { id: string; key: string };
  plan: { id: string; key: string; version: number };
  /** The month locked and paid and this month; null when the deals came from an export (no period is locked). */
  periods: { paid: string; open: string } | null;
  deal_events: { sent: number; replayed: number };
  /** The export's import, when the deals came from one (`quotient demo --from-export`). */
  import?: Omit<ImportSummary, 'dry_run' | 'refusals'> & { source: string };
  earnings: Record<string, number>;
}

/** A CRM export to take the demo's deals from instead of its scripted two months: its rows, read as they come. */
export interface DemoExport {
  /** The file, for the summary and the audit log. */
  source: string;
  rows: AsyncIterable<ImportRow>;
}

interface ScriptedEvent {
  external_id: string;
  dedup_key: string;
  state: Record<string, unknown>;
}

/** Two months (the last and this one) of deals: wins, a new logo, an open pipeline, a raised amount, a lost deal. */
export function demoDealEvents(today: Date): { paidMonth: string; openMonth: string; events: ScriptedEvent[] } {
  const open = { year: today.getUTCFullYear(), month: today.getUTCMonth() + 1 };
  const paid = open.month === 1 ? { year: open.year - 1, month: 12 } : { year: open.year, month: open.month - 1 };
  const monthId = (m: { year: number; month: number }) => `${m.year}-${String(m.month).padStart(2, '0')}`;
  const paidMonth = monthId(paid);
  const openMonth = monthId(open);
  const events: ScriptedEvent[] = [];
  const deal = (month: string, name: string, steps: Array<Record<string, unknown>>) => {
    steps.forEach((state, step) => {
      events.push({
        external_id: `demo-${month}-${name}`,
        dedup_key: `demo-${month}-${name}-${step + 1}`,
        state,
      });
    });
  };
  const won = (
    owner: string,
    amount: number,
    day: number,
    month: string,
    custom: Record<string, unknown>,
  ): Record<string, unknown> => ({
    amount_cents: amount,
    stage: 'closed_won',
    close_date: `${month}-${String(day).padStart(2, '0')}`,
    owner_external_id: owner,
    ...custom,
  });
  const open_ = (owner: string, amount: number, day: number, month: string, custom: Record<string, unknown>) => ({
    ...won(owner, amount, day, month, custom),
    stage: 'negotiation',
  });

  // Last month: Ana goes over quota (the worked example of docs/plans-and-earnings.md), Ben and Chen earn their base.
  deal(paidMonth, 'northwind', [
    open_('ana', 6_000_000, 10, paidMonth, { region: 'EMEA' }),
    won('ana', 6_000_000, 10, paidMonth, { region: 'EMEA' }),
  ]);
  deal(paidMonth, 'globex', [won('ana', 5_000_000, 20, paidMonth, { region: 'NA', new_logo: true })]);
  deal(paidMonth, 'initech', [won('ben', 3_000_000, 12, paidMonth, { region: 'EMEA' })]);
  deal(paidMonth, 'umbrella', [won('chen', 4_500_000, 15, paidMonth, { region: 'NA' })]);
  // This month: one win, an open pipeline, a deal whose amount went up, and one lost after all.
  deal(openMonth, 'stark', [won('ana', 4_000_000, 5, openMonth, { region: 'EMEA' })]);
  deal(openMonth, 'wayne', [open_('ben', 8_000_000, 28, openMonth, { region: 'NA', new_logo: true })]);
  deal(openMonth, 'acme', [
    open_('chen', 2_000_000, 25, openMonth, { region: 'EMEA' }),
    open_('chen', 2_500_000, 25, openMonth, { region: 'EMEA' }),
  ]);
  deal(openMonth, 'hooli', [
    won('ben', 3_500_000, 3, openMonth, { region: 'EMEA' }),
    { ...won('ben', 3_500_000, 3, openMonth, { region: 'EMEA' }), stage: 'closed_lost' },
  ]);
  return { paidMonth, openMonth, events };
}

/** The use cases the demo goes through, as the API and the admin commands do. */
export interface DemoServices {
  keys: KeyAdmin;
  plans: PlanRollout;
  ingestion: DealIngestion;
  periods: PeriodAdmin;
  dealImport: DealImport;
}

export class Demo {
  private readonly db: Transactor;
  private readonly services: DemoServices;

  constructor(db: Transactor, services: DemoServices) {
    this.db = db;
    this.services = services;
  }

  /**
   * The org (reused by name), its key and its plan; then the scripted deals with the last month locked and paid, or
   * with `fromExport` the export's rows imported as `quotient import deals` imports them (run again, every row is
   * unchanged) and no period locked.
   */
  async run(orgName: string, today = new Date(), fromExport?: DemoExport): Promise<DemoResult> {
    const statements = this.db.statements;
    const existing = (await orgs.list(statements)).find((org) => org.name === orgName);
    const org = existing ?? (await orgs.create(statements, orgName));
    const created = await this.services.keys.create({
      orgId: org.id,
      name: 'demo key',
      scopes: 'deals:read,deals:write,earnings:read,plans:read',
    });
    const applied = await this.services.plans.apply({
      orgId: org.id,
      text: await readFile(EXAMPLE_PLAN, 'utf8'),
      format: 'yaml',
      source: 'examples/plans/core-ae.yaml',
    });

    const counts = () => earningsOverview.countsByStatus(statements, org.id);
    const common = {
      org: { id: org.id, name: org.name, reused: existing !== undefined },
      key: { id: created.record.id, key: created.rawKey },
      plan: { id: applied.plan_id, key: 'core-ae', version: applied.version },
    };
    if (fromExport) {
      const summary = await this.services.dealImport.run({
        orgId: org.id,
        rows: fromExport.rows,
        dryRun: false,
        source: fromExport.source,
      });
      const { dry_run: _dryRun, refusals: _refusals, ...imported } = summary;
      return {
        ...common,
        periods: null,
        deal_events: { sent: summary.new_deals + summary.updates, replayed: summary.unchanged },
        import: { source: fromExport.source, ...imported },
        earnings: await counts(),
      };
    }

    const script = demoDealEvents(today);
    const { ingestion, periods } = this.services;
    const sent = { sent: 0, replayed: 0 };
    for (const event of script.events) {
      const body = JSON.parse(JSON.stringify(event)) as unknown;
      const result = await ingestion.ingest({
        orgId: org.id,
        keyId: created.record.id,
        event: parseDealEvent(body),
        body,
        rawBody: JSON.stringify(event),
        receivedAt: new Date(),
      });
      if (result.kind === 'conflict') throw new Error(`demo event ${event.dedup_key} conflicts with an earlier one`);
      sent[result.kind === 'replayed' ? 'replayed' : 'sent'] += 1;
    }

    const paidAlready = (await periods.list(org.id)).some(
      (period) => period.id === script.paidMonth && period.status === 'paid',
    );
    if (!paidAlready) {
      await periods.lock(org.id, script.paidMonth);
      await periods.markPaid(org.id, script.paidMonth);
    }

    return {
      ...common,
      periods: { paid: script.paidMonth, open: script.openMonth },
      deal_events: sent,
      earnings: await counts(),
    };
  }
}
