import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { POLICY_YAML } from '../factories/accounting.ts';
import { applyPlan } from '../factories/plans.ts';
import { csvRows } from '../helpers/csv.ts';
import { testDatabase } from '../helpers/database.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// Text from the CRM and the policy file that a spreadsheet would run as a formula (CSV injection) reaches every CSV
// export defused, through the real server and database: the payroll file, a statement and the accounting exports.
// Numbers, negative ones too, stay numbers.

const HOSTILE_DEAL = '=HYPERLINK("http://x","y")';
const HOSTILE_REP = "+cmd|' /C calc'!A0";
const HOSTILE_ACCOUNT = '@SUM(1)';
const HOSTILE_PLAN_NAME = '-2+3 plan';
const HOSTILE_REASON = '\t=1+1';

/** Every cell a spreadsheet would read as a formula: one that starts one and is not a plain number. */
function formulaCells(rows: string[][]): string[] {
  return rows.flat().filter((cell) => /^[=+\-@\t\r]/.test(cell) && !/^-?\d+(\.\d+)?$/.test(cell));
}

function column(rows: string[][], name: string): string[] {
  const [header = [], ...body] = rows;
  const index = header.indexOf(name);
  assert.ok(index >= 0, `no column ${name} in ${header.join(',')}`);
  return body.map((row) => row[index] ?? '');
}

describe('CSV exports with hostile text', () => {
  test('the payroll file, the statement and the accounting exports defuse formulas and keep negative amounts', async ({
    org,
    client,
    signedIn,
  }) => {
    const db = testDatabase();
    await applyPlan(db, org.id, {
      key: 'core-ae',
      name: HOSTILE_PLAN_NAME,
      period: 'monthly',
      assignees: 'all',
      chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }],
    });
    await client.deals.ingestEvent({
      external_id: HOSTILE_DEAL,
      state: {
        amount_cents: 3_600_000,
        stage: 'closed_won',
        close_date: '2026-01-15',
        owner_external_id: HOSTILE_REP,
        custom: { contract_months: 36 },
      },
    });
    const { client: admin } = await signedIn('admin', org.id);
    const adjustment = await admin.api.POST('/admin/v1/adjustments', {
      body: {
        user_external_id: HOSTILE_REP,
        period_id: '2026-01',
        amount_cents: -5000,
        category: 'deduction',
        reason: HOSTILE_REASON,
      },
    });
    assert.equal(adjustment.response.status, 201, JSON.stringify(adjustment.error));
    await testServices({ db }).admin.periods.lock(org.id, '2026-01');
    const policy = await admin.api.POST('/admin/v1/accounting/policy-files', {
      body: {
        text: POLICY_YAML.replace(
          'deferred_commission_asset: "1450"',
          `deferred_commission_asset: "${HOSTILE_ACCOUNT}"`,
        ),
      },
    });
    assert.equal(policy.response.status, 200, JSON.stringify(policy.error));

    const payroll = await admin.api.GET('/admin/v1/periods/{id}/payroll-export', {
      params: { path: { id: '2026-01' } },
      parseAs: 'text',
    });
    assert.equal(payroll.response.status, 200);
    assert.match(payroll.data ?? '', /\r\n$/);
    const payrollRows = await csvRows(payroll.data ?? '');
    assert.deepEqual(column(payrollRows, 'user_external_id'), [`'${HOSTILE_REP}`]);
    assert.deepEqual(column(payrollRows, 'adjustment_cents'), ['-5000']);
    assert.deepEqual(formulaCells(payrollRows), []);

    const rep = await client.users.findByExternalId(HOSTILE_REP);
    assert.ok(rep);
    const statementRows = await csvRows(await client.statements.csv(rep.id, '2026-01'));
    assert.deepEqual(column(statementRows, 'deal_external_id'), [`'${HOSTILE_DEAL}`, '']);
    assert.deepEqual(column(statementRows, 'plan_name'), [`'${HOSTILE_PLAN_NAME}`, '']);
    assert.deepEqual(column(statementRows, 'explanation').at(-1), `'${HOSTILE_REASON}`);
    assert.deepEqual(column(statementRows, 'amount_cents'), ['360000', '-5000']);
    assert.deepEqual(column(statementRows, 'amount'), ['3600.00', '-50.00']);
    assert.deepEqual(formulaCells(statementRows), []);

    const report = async (path: '/admin/v1/accounting/waterfall' | '/admin/v1/accounting/journal', by?: 'rep') => {
      const answer = await admin.api.GET(path, {
        params: { query: { from: '2026-01', format: 'csv', ...(by ? { by } : {}) } },
        parseAs: 'text',
      });
      assert.equal(answer.response.status, 200);
      assert.equal(answer.response.headers.get('content-type'), 'text/csv; charset=utf-8');
      return csvRows(String(answer.data));
    };
    const byDeal = await report('/admin/v1/accounting/waterfall');
    assert.deepEqual(column(byDeal, 'deal'), [`'${HOSTILE_DEAL}`]);
    assert.deepEqual(formulaCells(byDeal), []);
    const byRep = await report('/admin/v1/accounting/waterfall', 'rep');
    assert.deepEqual(column(byRep, 'rep'), [`'${HOSTILE_REP}`]);
    assert.deepEqual(formulaCells(byRep), []);
    const journal = await report('/admin/v1/accounting/journal');
    assert.ok(column(journal, 'account').includes(`'${HOSTILE_ACCOUNT}`));
    assert.ok(!column(journal, 'account').includes(HOSTILE_ACCOUNT));
    assert.deepEqual(formulaCells(journal), []);
  });
});
