import type { ChipStanding } from '../domain/earnings/standings.ts';
import type { PeriodId } from '../domain/periods.ts';
import { named, type Transaction } from './transaction.ts';

// The running totals of reps' periods (period_standings): read and written by deal events under the reps'
// evaluation locks, dropped by recomputes. A standing is trusted only at the org configuration version it was
// counted under (the exchange rates it priced deals with).

/** A rep's running totals under one plan version. */
export interface RepStanding {
  plan_version_id: string;
  user_id: string;
  standing: ChipStanding;
}

interface StandingRow {
  plan_version_id: string;
  user_id: string;
  chip_id: string;
  period_id: string;
  total_cents: string;
  counted: number;
  unpriced: number;
  last: ChipStanding['last'];
  open: number;
}

/** The standings of these reps' periods under these plan versions counted at `configVersion`. */
export async function standingsOf(
  tx: Transaction,
  orgId: string,
  configVersion: number,
  planVersionIds: readonly string[],
  userIds: readonly string[],
  periods: readonly PeriodId[],
): Promise<RepStanding[]> {
  if (planVersionIds.length === 0 || userIds.length === 0 || periods.length === 0) return [];
  const rows = await tx.query<StandingRow>(
    named('period_standings_of', {
      text: `SELECT plan_version_id, user_id, chip_id, period_id, total_cents::text AS total_cents, counted, unpriced, last,
                    open
             FROM period_standings
             WHERE org_id = $1 AND plan_version_id = ANY($2::text[]) AND user_id = ANY($3::text[])
               AND period_id = ANY($4::text[]) AND config_version = $5`,
      values: [orgId, [...new Set(planVersionIds)], [...new Set(userIds)], [...new Set(periods)], configVersion],
    }),
  );
  return rows.map((row) => ({
    plan_version_id: row.plan_version_id,
    user_id: row.user_id,
    standing: {
      chip_id: row.chip_id,
      period_id: row.period_id,
      total_cents: BigInt(row.total_cents),
      counted: row.counted,
      unpriced: row.unpriced,
      last: row.last,
      open: row.open,
    },
  }));
}

/** Writes the standings, replacing what was stored for the same version, rep, period and chip. */
export async function writeStandings(
  tx: Transaction,
  orgId: string,
  configVersion: number,
  standings: readonly RepStanding[],
): Promise<void> {
  if (standings.length === 0) return;
  await tx.query(
    named('period_standings_write', {
      text: `INSERT INTO period_standings
               (org_id, plan_version_id, user_id, period_id, chip_id, config_version, total_cents, counted, unpriced,
                last, open, updated_at)
             SELECT $1, s.plan_version_id, s.user_id, s.period_id, s.chip_id, $2, s.total_cents::numeric, s.counted,
                    s.unpriced, s.last, s.open, now()
             FROM jsonb_to_recordset($3::jsonb) AS s(plan_version_id text, user_id text, period_id text, chip_id text,
                  total_cents text, counted int, unpriced int, last jsonb, open int)
             ON CONFLICT (org_id, plan_version_id, user_id, period_id, chip_id) DO UPDATE SET
               config_version = EXCLUDED.config_version, total_cents = EXCLUDED.total_cents,
               counted = EXCLUDED.counted, unpriced = EXCLUDED.unpriced, last = EXCLUDED.last,
               open = EXCLUDED.open, updated_at = EXCLUDED.updated_at`,
      values: [
        orgId,
        configVersion,
        JSON.stringify(
          standings.map(({ plan_version_id, user_id, standing }) => ({
            plan_version_id,
            user_id,
            period_id: standing.period_id,
            chip_id: standing.chip_id,
            total_cents: standing.total_cents.toString(),
            counted: standing.counted,
            unpriced: standing.unpriced,
            last: standing.last,
            open: standing.open,
          })),
        ),
      ],
    }),
  );
}

/** Drops every standing of the org: what a recompute may change, the next deal event of each period counts again. */
export async function dropStandingsOfOrg(tx: Transaction, orgId: string): Promise<void> {
  await tx.query(
    named('period_standings_drop_org', {
      text: 'DELETE FROM period_standings WHERE org_id = $1',
      values: [orgId],
    }),
  );
}
