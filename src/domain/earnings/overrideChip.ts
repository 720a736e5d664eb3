import type { ChipRules } from './chipRules.ts';
import { type Computation, rateSentence, SAME_CURRENCY, type ToPlanCurrency } from './chips.ts';
import { creditedPart, creditsOf, isSplit } from './credit.ts';
import type { RepHierarchy } from './hierarchy.ts';
import { managersOn } from './hierarchy.ts';
import {
  type AmountDecimals,
  centsAsNumber,
  exactCentsString,
  exactRate,
  formatMoney,
  formatRate,
  rateOnWire,
  TWO_DECIMALS,
} from './money.ts';
import type { DealSnapshot } from './types.ts';

// A manager override line: the manager's reports that a deal credits (on the deal's day, down to the chip's
// depth) and the rate of the sum of their credited parts.

/** A report of the manager that a deal credits, with the report's part of the amount and the path up to the manager. */
export interface OverrideReport {
  owner_external_id: string;
  share_bps: number;
  credited_cents: bigint;
  /** From the report up to the manager, both included. */
  path: string[];
}

/**
 * The manager's reports (down to `depth` levels, on `day`) that the deal credits, each once, in the order of the
 * deal's credits. The manager's own credit is not an override: it is the manager's own deal.
 */
export function overrideReportsOf(
  deal: DealSnapshot,
  managerExternalId: string,
  hierarchy: RepHierarchy,
  day: string,
  depth: number,
): OverrideReport[] {
  const amount = BigInt(deal.amount_cents ?? 0);
  return creditsOf(deal).flatMap((credit) => {
    if (credit.owner_external_id === managerExternalId) return [];
    const chain = managersOn(hierarchy, credit.owner_external_id, day, depth);
    const level = chain.indexOf(managerExternalId);
    if (level < 0) return [];
    return [
      {
        owner_external_id: credit.owner_external_id,
        share_bps: credit.share_bps,
        credited_cents: creditedPart(deal, credit.owner_external_id, amount, 'the amount').cents,
        path: [credit.owner_external_id, ...chain.slice(0, level + 1)],
      },
    ];
  });
}

/**
 * `rate_bps` of the sum of the reports' credited parts of the deal: one line per manager and deal, so a deal two
 * of the manager's reports split is counted once, on the sum of their shares.
 */
export function computeOverride(
  deal: DealSnapshot,
  rules: ChipRules & { kind: 'override' },
  managerExternalId: string,
  reports: readonly OverrideReport[],
  day: string,
  toPlanCurrency: ToPlanCurrency = SAME_CURRENCY,
  decimals: AmountDecimals = TWO_DECIMALS,
): Computation {
  const dealMoney = (cents: bigint) => formatMoney(cents, decimals.deal);
  const credited = reports.reduce((sum, report) => sum + report.credited_cents, 0n);
  const amount = BigInt(deal.amount_cents ?? 0);
  const explanation = reports.map((report) => {
    const relation =
      report.path.length === 2 ? 'reports directly to' : `reports, ${report.path.length - 1} levels down, to`;
    const part = isSplit(deal)
      ? `credited ${formatRate(BigInt(report.share_bps))} of the amount ${dealMoney(amount)} = ${dealMoney(report.credited_cents)}`
      : `credited the whole amount, ${dealMoney(report.credited_cents)}`;
    return `On ${day}, ${report.owner_external_id} ${relation} ${managerExternalId} (${report.path.join(' → ')}), ${part}.`;
  });
  if (reports.length > 1) {
    explanation.push(
      `The deal counts once for ${managerExternalId}: ${reports.map((report) => dealMoney(report.credited_cents)).join(' + ')} = ${dealMoney(credited)}.`,
    );
  }
  // The reports' credited amounts are in the deal's currency; the override pays in the plan's, like a commission.
  const converted = toPlanCurrency(credited);
  if (converted.sentence) explanation.push(converted.sentence);
  const base = converted.cents;
  const exact = exactRate(base, rules.rate);
  explanation.push(rateSentence(rules.rate, base, exact, decimals.plan));
  return {
    exact,
    steps: [
      { type: 'base', field: 'amount_cents', amount_cents: centsAsNumber(amount) },
      {
        type: 'override',
        manager_external_id: managerExternalId,
        depth: rules.depth,
        as_of: day,
        reports: reports.map((report) => ({
          owner_external_id: report.owner_external_id,
          share_bps: report.share_bps,
          credited_cents: centsAsNumber(report.credited_cents),
          level: report.path.length - 1,
          path: report.path,
        })),
        base_cents: centsAsNumber(credited),
      },
      ...(converted.step ? [converted.step] : []),
      {
        type: 'rate',
        rate_bps: rateOnWire(rules.rate),
        base_cents: centsAsNumber(base),
        exact_cents: exactCentsString(exact),
      },
    ],
    explanation,
  };
}
