import { type AccountingPolicy, readPolicyFile } from '../../src/domain/accounting/policy.ts';
import type { AssetEvent, AssetInput } from '../../src/domain/accounting/schedule.ts';

// Accounting policies and earning-line histories for the accounting tests.

export const POLICY_YAML = `book: asc_340_40
currency: USD
capitalise:
  - plan: core-ae
benefit_period:
  field: custom.contract_months
  default_months: 36
practical_expedient_months: 12
gl_accounts:
  deferred_commission_asset: "1450"
  commission_payable: "2150"
  amortisation_expense: "6120"
  commission_expense: "6100"
`;

export function accountingPolicy(overrides: Partial<AccountingPolicy> = {}): AccountingPolicy {
  const result = readPolicyFile(POLICY_YAML);
  if (!result.ok) throw new Error(`the test policy is invalid: ${JSON.stringify(result.problems)}`);
  return { ...result.policy, ...overrides };
}

export function amount(month: string, amountMinor: number, recordedAt = `${month}-28T12:00:00.000Z`): AssetEvent {
  return {
    effective_month: month,
    recorded_at: recordedAt,
    source: `earning of ${month}`,
    change: { kind: 'amount', amount_minor: amountMinor },
  };
}

export function term(month: string, contractMonths: number, recordedAt = `${month}-28T12:00:00.000Z`): AssetEvent {
  return {
    effective_month: month,
    recorded_at: recordedAt,
    source: `deal event of ${month}`,
    change: { kind: 'term', contract_months: contractMonths },
  };
}

export function impairment(month: string, recordedAt = `${month}-28T12:00:00.000Z`): AssetEvent {
  return {
    effective_month: month,
    recorded_at: recordedAt,
    source: `deal event of ${month}`,
    change: { kind: 'impair', reason: 'the deal was lost' },
  };
}

export function asset(events: AssetEvent[], overrides: Partial<AssetInput> = {}): AssetInput {
  return {
    asset_id: 'line-1',
    deal_id: 'deal_1',
    deal_external_id: 'opp-1',
    user_external_id: 'rep-1',
    plan_key: 'core-ae',
    chip_key: 'base',
    contract_start: null,
    events,
    ...overrides,
  };
}
