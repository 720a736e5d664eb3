import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { stringify } from 'yaml';
import { nextPeriodId, periodBounds, periodIdOf } from '../../src/domain/periods.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { test } from '../helpers/fixtures.ts';
import { pdfText } from '../helpers/pdfText.ts';
import { sdkClient } from '../helpers/sdk.ts';

// A rep's own quota in their plan document (docs/plan-documents.md): a rep token reads its rep's document, an API
// key or an admin names the rep with `user_id`, and "Your quota" gives the rep's quota table and ramp per period,
// the figures the engine and statements use. Through the real server, which validates its own responses.

/** Monthly, quota 100,000.00, ramped 25/50/75/100 from a rep's start date; a tier band in percent of quota. */
function rampedPlan() {
  return planDocument({
    ramp: [25, 50, 75, 100],
    chips: [
      {
        key: 'accelerator',
        name: 'Accelerator over quota',
        kind: 'tiered_commission',
        mode: 'marginal',
        tiers: [
          { up_to_pct: 100, rate_bps: 500 },
          { up_to_pct: null, rate_bps: 1000 },
        ],
      },
    ],
  });
}

describe("a rep's quota in the plan document", () => {
  test('the rep token, the API key with user_id and the admin API show the rep’s quota table and ramp', async ({
    db,
    newOrg,
    server,
    signedIn,
  }) => {
    const { org, client, rawKey } = await newOrg({
      scopes: ['deals:read', 'earnings:read', 'plans:read', 'rep_tokens:write'],
    });
    const plan = rampedPlan();
    const applied = await applyPlan(db, org.id, plan);
    const planId = applied.plan_id;
    // The document's year starts in the period the version was applied in (today's month).
    const key = await client.plans.document(planId);
    const first = periodIdOf(key.plan.applied_at.slice(0, 10), 'monthly');
    const second = nextPeriodId(first);
    const third = nextPeriodId(second);
    const fourth = nextPeriodId(third);
    // Started on the 5th of the month before: the version's month is ramp month 2.
    const previousMonthStart = (() => {
      const [year, month] = first.split('-').map(Number) as [number, number];
      return month === 1 ? `${year - 1}-12-05` : `${year}-${String(month - 1).padStart(2, '0')}-05`;
    })();
    const { client: admin } = await signedIn('admin', org.id);
    const uploaded = await admin.api.POST('/admin/v1/quota-files', {
      body: {
        text: [
          'rep_external_id,plan_key,from,quota,start_date',
          `rep-ramp,${plan.key},${periodBounds(first).starts_on},120000.00,${previousMonthStart}`,
          `rep-ramp,${plan.key},${periodBounds(fourth).starts_on},150000.00,`,
          `rep-other,${plan.key},${periodBounds(first).starts_on},80000.00,`,
        ].join('\n'),
      },
    });
    assert.equal(uploaded.response.status, 200, JSON.stringify(uploaded.error));
    const rep = await client.users.findByExternalId('rep-ramp');
    const other = await client.users.findByExternalId('rep-other');
    assert.ok(rep && other);

    // Without user_id an API key's document is the plan's: no periods.
    assert.deepEqual(key.quota.periods, []);
    assert.equal(key.quota.amount, '100,000.00');

    const expected = [
      [first, 6_000_000, '60,000.00'], // ramp month 2: 50% of 120,000.00
      [second, 9_000_000, '90,000.00'], // month 3: 75%
      [third, 12_000_000, '120,000.00'], // month 4: 100%
      [fourth, 15_000_000, '150,000.00'], // the table's next entry
    ];
    const repClient = sdkClient(server, (await client.repTokens.create({ user_id: rep.id })).token, {
      maxRetries: 0,
    });
    const own = await repClient.plans.document(planId);
    assert.deepEqual(
      own.quota.periods.slice(0, 4).map((period) => [period.period_id, period.quota_cents, period.amount]),
      expected,
    );
    assert.equal(own.quota.periods.length, 12);
    assert.equal(
      own.quota.periods[0]?.source,
      `quota 60,000.00: ramp month 2 of 4, 50% of 120,000.00, the quota set for this rep from ${periodBounds(first).starts_on}; the rep started on ${previousMonthStart}.`,
    );
    assert.equal(own.quota.amount, '60,000.00');
    assert.equal(own.quota.start_date, previousMonthStart);
    assert.match(own.quota.ramp ?? '', /month 1 25%, month 2 50%, month 3 75%, month 4 100%/);
    assert.match(own.subtitle, /for rep-ramp$/);
    // The tier band in percent of quota is the rep's quota for the version's period.
    assert.equal(own.chips[0]?.tiers?.[0]?.to, '60,000.00 (100% of quota)');

    // The statement of the version's period gives the same figure and sentence.
    const statement = await client.statements.get(rep.id, first);
    assert.equal(statement.plans[0]?.attainment?.quota_cents, 6_000_000);
    assert.equal(statement.plans[0]?.attainment?.quota_explanation, own.quota.periods[0]?.source);

    // The API key naming the rep, and the admin API, give the same quota section.
    const named = await client.plans.document(planId, { user_id: rep.id });
    assert.deepEqual(named.quota, own.quota);
    const adminDocument = await admin.api.GET('/admin/v1/plans/{id}/versions/{version_id}/document', {
      params: { path: { id: planId, version_id: applied.version_id }, query: { user_id: rep.id, format: 'json' } },
    });
    assert.equal(adminDocument.response.status, 200);
    assert.deepEqual((adminDocument.data as typeof own).quota, own.quota);
    // Another rep's own figure.
    const otherDocument = await client.plans.document(planId, { user_id: other.id });
    assert.deepEqual(
      otherDocument.quota.periods.slice(0, 1).map((period) => [period.period_id, period.quota_cents]),
      [[first, 8_000_000]],
    );
    assert.equal(otherDocument.quota.start_date, null);

    // HTML and PDF carry the rep's table.
    const html = await fetch(`${server.url}/v1/plans/${planId}/document?format=html`, {
      headers: { Authorization: `Bearer ${(await client.repTokens.create({ user_id: rep.id })).token}` },
    });
    assert.equal(html.status, 200);
    const page = await html.text();
    assert.match(
      page,
      new RegExp(`<tr><td>${second}</td><td class="money">90,000\\.00</td><td>quota 90,000\\.00: ramp month 3 of 4`),
    );
    const pdf = await pdfText(await repClient.plans.documentPdf(planId));
    assert.ok(
      pdf.lines.some((line) => line.startsWith(`${third} 120,000.00 quota 120,000.00`)),
      `the PDF has the quota of ${third}:\n${pdf.text}`,
    );

    // A new version asks the reps to accept it, each shown (and keeping) their own document, with their quota.
    const revised = await admin.api.POST('/admin/v1/plan-files', {
      body: { text: stringify({ ...plan, name: 'Core AE plan, revised' }) },
    });
    assert.equal(revised.response.status, 200, JSON.stringify(revised.error));
    const kept = async (userId: string) => {
      const listed = await fetch(`${server.url}/v1/plan-acceptances?user_id=${userId}`, {
        headers: { Authorization: `Bearer ${rawKey}` },
      });
      const [acceptance] = ((await listed.json()) as { plan_acceptances: Array<{ id: string }> }).plan_acceptances;
      assert.ok(acceptance, `an acceptance was asked of ${userId}`);
      const answer = await fetch(`${server.url}/v1/plan-acceptances/${acceptance.id}/document?format=json`, {
        headers: { Authorization: `Bearer ${rawKey}` },
      });
      return ((await answer.json()) as typeof own).quota;
    };
    const keptOwn = await kept(rep.id);
    assert.deepEqual(
      keptOwn.periods.slice(0, 4).map((period) => [period.period_id, period.quota_cents, period.amount]),
      expected,
    );
    assert.equal(keptOwn.start_date, previousMonthStart);
    assert.equal((await kept(other.id)).periods[0]?.quota_cents, 8_000_000);

    // A rep token may not read another rep's document (not their report), nor may anyone name an unknown user.
    const refused = await fetch(`${server.url}/v1/plans/${planId}/document?user_id=${other.id}`, {
      headers: { Authorization: `Bearer ${(await client.repTokens.create({ user_id: rep.id })).token}` },
    });
    assert.equal(refused.status, 404);
    assert.equal(((await refused.json()) as { error: string }).error, 'not_found');
    const unknown = await fetch(`${server.url}/v1/plans/${planId}/document?user_id=user_01knvyqwr3fmtr77g6vdncr588`, {
      headers: { Authorization: `Bearer ${rawKey}` },
    });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { reason: string }).reason, 'no user user_01knvyqwr3fmtr77g6vdncr588');
  });
});
