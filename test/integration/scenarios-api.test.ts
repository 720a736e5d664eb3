import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { stringify } from 'yaml';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { eventually } from '../helpers/clock.ts';
import { state } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { ingestRequest } from '../helpers/ingestRequests.ts';

// The admin API of plan scenarios (docs/scenarios.md): start, poll, reps, a line's trace, keep, promote, refusals.

describe('plan scenarios through the admin API', () => {
  test('a draft run off the request path, then promoted through the normal apply', async ({
    db,
    services,
    signedIn,
  }) => {
    const { org, client } = await signedIn();
    const current = planDocument();
    await applyPlan(db, org.id, current);
    await services.api.ingestion.ingest(
      ingestRequest(org.id, {
        external_id: 'opp-a',
        state: state(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
      }),
    );
    await services.admin.periods.lock(org.id, '2026-04');
    const draft = {
      ...current,
      chips: current.chips.map((chip) => (chip.key === 'base' ? { ...chip, rate_bps: 1200 } : chip)),
    };

    const started = await client.api.POST('/admin/v1/scenarios', {
      body: { text: stringify(draft), from: '2026-04', to: '2026-04', name: 'Base at 12%' },
    });
    assert.equal(started.response.status, 202);
    const id = started.data?.id ?? '';
    const done = await eventually(async () => {
      const { data } = await client.api.GET('/admin/v1/scenarios/{id}', { params: { path: { id } } });
      return data?.status === 'done' ? data : undefined;
    });
    assert.deepEqual(done.progress, { reps_done: 1, reps_total: 1 });
    assert.equal(done.summary?.actual_cents, 600_000);
    assert.equal(done.summary?.scenario_cents, 720_000);

    const page = await client.api.GET('/admin/v1/scenarios/{id}/reps', {
      params: { path: { id }, query: { limit: 10 } },
    });
    const rep = page.data?.reps[0];
    assert.equal(rep?.user_external_id, 'rep-017');
    assert.deepEqual(
      rep?.chips.map((chip) => [chip.chip_key, chip.difference_cents]),
      [['base', 120_000]],
    );
    const line = rep?.lines[0]?.line_key ?? '';
    const trace = await client.api.GET('/admin/v1/scenarios/{id}/lines/{line}', { params: { path: { id, line } } });
    assert.equal(trace.data?.earned_cents, 720_000);

    const kept = await client.api.POST('/admin/v1/scenarios/{id}/keep', {
      params: { path: { id } },
      body: { kept: true, name: 'Kept' },
    });
    assert.deepEqual([kept.data?.kept, kept.data?.name], [true, 'Kept']);

    // Compared with the current plan as a draft (B): per rep and period, B − A.
    const other = await client.api.POST('/admin/v1/scenarios', {
      body: { text: stringify(current), from: '2026-04', to: '2026-04' },
    });
    const otherId = other.data?.id ?? '';
    await eventually(async () => {
      const { data } = await client.api.GET('/admin/v1/scenarios/{id}', { params: { path: { id: otherId } } });
      return data?.status === 'done' ? data : undefined;
    });
    const compared = await client.api.GET('/admin/v1/scenarios/{id}/compare/{other}', {
      params: { path: { id, other: otherId } },
    });
    assert.equal(compared.response.status, 200);
    assert.deepEqual(
      [compared.data?.a.id, compared.data?.b.id, compared.data?.a_cents, compared.data?.b_cents],
      [id, otherId, 720_000, 600_000],
    );
    assert.deepEqual(compared.data?.reps, [
      {
        user_external_id: 'rep-017',
        a_cents: 720_000,
        b_cents: 600_000,
        difference_cents: -120_000,
        periods: [{ period_id: '2026-04', a_cents: 720_000, b_cents: 600_000, difference_cents: -120_000 }],
      },
    ]);
    const unknown = await client.api.GET('/admin/v1/scenarios/{id}/compare/{other}', {
      params: { path: { id, other: 'scn_nope' } },
    });
    assert.equal(unknown.response.status, 404);

    const promoted = await client.api.POST('/admin/v1/scenarios/{id}/promote', { params: { path: { id } } });
    assert.equal(promoted.response.status, 200);
    assert.equal(promoted.data?.version, 2);
    const after = await client.api.GET('/admin/v1/scenarios/{id}', { params: { path: { id } } });
    assert.equal(after.data?.promoted_version_id, promoted.data?.version_id);
  });

  test('a plan file with problems is 422, an open span 400, an unknown scenario 404', async ({ signedIn }) => {
    const { client } = await signedIn();
    const bad = await client.api.POST('/admin/v1/scenarios', {
      body: { text: 'key: [', from: '2026-03', to: '2026-04' },
    });
    assert.equal(bad.response.status, 422);
    assert.equal(bad.error?.error, 'invalid_plan_file');
    const open = await client.api.POST('/admin/v1/scenarios', {
      body: { text: stringify(planDocument()), from: '2026-03', to: '2099-04' },
    });
    assert.equal(open.response.status, 400);
    assert.equal(open.error?.error, 'invalid_body');
    const missing = await client.api.GET('/admin/v1/scenarios/{id}', { params: { path: { id: 'scn_nope' } } });
    assert.equal(missing.response.status, 404);
  });
});
