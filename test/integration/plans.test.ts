import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, test } from 'vitest';
import { stringify } from 'yaml';
import { Refusal } from '../../src/domain/refusal.ts';
import * as audit from '../../src/repositories/audit.ts';
import * as planSnapshots from '../../src/repositories/planSnapshots.ts';
import * as plans from '../../src/repositories/plans.ts';
import { databaseStatements } from '../../src/repositories/transaction.ts';
import { enginePlanOf } from '../../src/services/earnings/engineAdapter.ts';
import type { PlanArchived, PlanChangeListener, PlanVersionApplied } from '../../src/services/planChanges.ts';
import { createOrg } from '../factories/access.ts';
import { applyPlan, planDocument, planFile } from '../factories/plans.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { closeTestDatabase, testDatabase } from '../helpers/database.ts';
import { noPlanChanges } from '../helpers/listeners.ts';
import { testServices } from '../helpers/services.ts';

const EXAMPLE_FILE = fileURLToPath(new URL('../../examples/plans/core-ae.yaml', import.meta.url));
const PLAN_ID = /^plan_[0-7][0-9a-hjkmnp-tv-z]{25}$/;
const VERSION_ID = /^pv_[0-7][0-9a-hjkmnp-tv-z]{25}$/;
const CHIP_ID = /^chip_[0-7][0-9a-hjkmnp-tv-z]{25}$/;

afterAll(closeTestDatabase);

async function auditActions(orgId: string): Promise<string[]> {
  const entries = await audit.listForOrg(databaseStatements(testDatabase()), orgId, { limit: 100 });
  return entries.map((entry) => entry.action).reverse();
}

async function planRows(orgId: string) {
  const db = testDatabase();
  return {
    plans: await db.plan.count({ where: { org_id: orgId } }),
    versions: await db.planVersion.count({ where: { org_id: orgId } }),
    chips: await db.chip.count({ where: { org_id: orgId } }),
  };
}

function chipsOf(snapshot: Awaited<ReturnType<typeof planSnapshots.snapshot>>) {
  return (snapshot?.chips ?? []).map((chip) => ({ id: chip.id, key: chip.definition.key, version: chip.version }));
}

/** Records what the plan-change hook was told. */
function recordingListener() {
  const applied: PlanVersionApplied[] = [];
  const archived: PlanArchived[] = [];
  const listener: PlanChangeListener = {
    onPlanVersionApplied: async (_tx, change) => {
      applied.push(change);
    },
    onPlanArchived: async (_tx, change) => {
      archived.push(change);
    },
  };
  return { listener, applied, archived };
}

describe('quotient plans (CLI)', () => {
  test('apply of the example file prints the new plan and version; list shows it active', async () => {
    const org = await createOrg(testDatabase());
    const result = await runCli(['plans', 'apply', EXAMPLE_FILE, '--org', org.id, '--json']);
    assert.equal(result.code, 0, result.stderr);
    const applied = onlyJson(result) as { plan_id: string; version_id: string; version: number; changed: boolean };
    assert.match(applied.plan_id, PLAN_ID);
    assert.match(applied.version_id, VERSION_ID);
    assert.equal(applied.version, 1);
    assert.equal(applied.changed, true);

    const listed = await runCli(['plans', 'list', '--org', org.id, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const { plans } = onlyJson(listed) as { plans: Array<Record<string, unknown>> };
    assert.equal(plans.length, 1);
    assert.deepEqual(
      {
        id: plans[0]?.id,
        key: plans[0]?.key,
        status: plans[0]?.status,
        period: plans[0]?.period,
        quota_cents: plans[0]?.quota_cents,
        current_version_id: plans[0]?.current_version_id,
        current_version: plans[0]?.current_version,
      },
      {
        id: applied.plan_id,
        key: 'core-ae',
        status: 'active',
        period: 'monthly',
        quota_cents: 10000000,
        current_version_id: applied.version_id,
        current_version: 1,
      },
    );
    assert.deepEqual(await auditActions(org.id), ['plan.applied']);
  });

  test('applying the same file again prints changed: false', async () => {
    const org = await createOrg(testDatabase());
    const first = await runCli(['plans', 'apply', EXAMPLE_FILE, '--org', org.id, '--json']);
    const again = await runCli(['plans', 'apply', EXAMPLE_FILE, '--org', org.id, '--json']);
    assert.equal(again.code, 0, again.stderr);
    const pick = (document: unknown) => {
      const { plan_id, version_id, version, changed } = document as Record<string, unknown>;
      return { plan_id, version_id, version, changed };
    };
    assert.deepEqual(pick(onlyJson(again)), { ...pick(onlyJson(first)), changed: false });
    const human = await runCli(['plans', 'apply', EXAMPLE_FILE, '--org', org.id]);
    assert.match(human.stdout, /core-ae\.yaml matches version 1 of plan plan_\w+; nothing changed\.\n$/);
  });

  test('a bad file exits 2, lists every problem by path and applies nothing', async () => {
    const org = await createOrg(testDatabase());
    const document = planDocument({ key: 'Core AE', period: 'weekly' });
    (document.chips[0] as Record<string, unknown>).rate_bps = '10%';
    document.chips[1] = {
      ...document.chips[1],
      tiers: [
        { up_to_pct: null, rate_bps: 0 },
        { up_to_pct: 150, rate_bps: 500 },
      ],
    };
    document.chips[3] = { ...document.chips[3], key: 'base' };
    const file = await planFile(document);

    const result = await runCli(['plans', 'apply', file, '--org', org.id, '--json']);
    assert.equal(result.code, 2);
    const failure = onlyJson(result) as {
      error: string;
      reason: string;
      problems: Array<{ path: string; line: number }>;
    };
    assert.equal(failure.error, 'invalid_plan_file');
    assert.match(failure.reason, /has 6 problems; nothing was applied$/);
    assert.deepEqual(
      failure.problems.map((problem) => problem.path),
      [
        'key',
        'period',
        'chips[0].rate_bps',
        'chips[1].tiers[0].up_to_pct',
        'chips[1].tiers[1].up_to_pct',
        'chips[3].key',
      ],
    );
    assert.ok(failure.problems.every((problem) => Number.isInteger(problem.line)));
    assert.deepEqual(await planRows(org.id), { plans: 0, versions: 0, chips: 0 });
    // The refusal is recorded (who tried what); nothing else is.
    assert.deepEqual(await auditActions(org.id), ['plan.apply_refused']);

    const human = await runCli(['plans', 'apply', file, '--org', org.id]);
    assert.equal(human.code, 2);
    assert.equal(human.stdout, '');
    assert.match(human.stderr, /has 6 problems; nothing was applied\n {2}key \(line 1\): must be a key/);
    assert.match(human.stderr, /\n {2}chips\[3\]\.key \(line \d+\): repeats the key of chips\[0\]/);
  });

  test('a JSON plan file is read as JSON', async () => {
    const org = await createOrg(testDatabase());
    const file = await planFile(planDocument(), 'plan.json');
    const result = await runCli(['plans', 'apply', file, '--org', org.id, '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal((onlyJson(result) as { version: number }).version, 1);
  });

  test('archive prints the archived plan; archiving again changes nothing', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const { plan_id } = await applyPlan(db, org.id, planDocument());
    const archived = await runCli(['plans', 'archive', plan_id, '--org', org.id, '--json']);
    assert.equal(archived.code, 0, archived.stderr);
    const first = onlyJson(archived) as { status: string; archived_at: string; changed: boolean };
    assert.equal(first.status, 'archived');
    assert.equal(first.changed, true);
    const again = onlyJson(await runCli(['plans', 'archive', plan_id, '--org', org.id, '--json'])) as typeof first;
    assert.equal(again.changed, false);
    assert.equal(again.archived_at, first.archived_at, 'the first archive time stays');
    assert.deepEqual(await auditActions(org.id), ['plan.applied', 'plan.archived']);
  });

  test('refusals: an unknown org, an unknown plan, an unreadable file', async () => {
    const org = await createOrg(testDatabase());
    const unknownOrg = await runCli(['plans', 'apply', EXAMPLE_FILE, '--org', 'org_nope', '--json']);
    assert.equal(unknownOrg.code, 2);
    assert.deepEqual(onlyJson(unknownOrg), { error: 'not_found', reason: 'no org org_nope' });
    const unknownPlan = await runCli(['plans', 'archive', 'plan_nope', '--org', org.id, '--json']);
    assert.equal(unknownPlan.code, 2);
    assert.deepEqual(onlyJson(unknownPlan), { error: 'not_found', reason: `org ${org.id} has no plan plan_nope` });
    const missing = await runCli(['plans', 'apply', '/nonexistent/plan.yaml', '--org', org.id, '--json']);
    assert.equal(missing.code, 2);
    assert.deepEqual(onlyJson(missing), {
      error: 'invalid_argument',
      reason: 'cannot read /nonexistent/plan.yaml: ENOENT',
    });
  });
});

describe('applying plan files', () => {
  test('the same content is a no-op that writes nothing, whatever its formatting', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const document = planDocument();
    const first = await applyPlan(db, org.id, document);
    const rowsBefore = await planRows(org.id);
    const reformatted = `# reviewed in PR 12\n${stringify(document, { indent: 4 })}`;
    const again = await testServices({ db }).admin.planAdmin.apply({ orgId: org.id, text: reformatted }, noPlanChanges);
    assert.equal(again.changed, false);
    assert.equal(again.version_id, first.version_id);
    assert.equal(again.version, 1);
    assert.deepEqual(await planRows(org.id), rowsBefore);
    assert.deepEqual(await auditActions(org.id), ['plan.applied']);
  });

  test('a stored version keeps the leaver rule and the plan year, in both snapshot readers and the engine plan', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const document = {
      ...planDocument({ chips: [planDocument().chips[1]] }),
      leaver_rule: 'claw_back_unpaid',
      plan_year: { starts_month: 4 },
    };
    const applied = await applyPlan(db, org.id, document);
    const statements = databaseStatements(db);
    const viaPrisma = await planSnapshots.snapshot(statements, org.id, applied.plan_id);
    const inSql = await planSnapshots.versionSnapshot(statements, org.id, applied.plan_id, applied.version_id);
    for (const snapshot of [viaPrisma, inSql]) {
      assert.equal(snapshot?.definition.leaver_rule, 'claw_back_unpaid');
      assert.deepEqual(snapshot?.definition.plan_year, { starts_month: 4 });
      const engine = snapshot && enginePlanOf(snapshot);
      assert.equal(engine?.leaver_rule, 'claw_back_unpaid');
      assert.deepEqual(engine?.plan_year, { starts_month: 4 });
    }
  });

  test('a changed file makes version 2: the plan takes its settings; chip ids stay; only the changed chip version rises', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const document = planDocument();
    const first = await applyPlan(db, org.id, document);
    const statements = databaseStatements(db);
    const before = await plans.find(statements, org.id, first.plan_id);
    const chipsBefore = chipsOf(await planSnapshots.snapshot(statements, org.id, first.plan_id));
    assert.ok(chipsBefore.every((chip) => CHIP_ID.test(chip.id) && chip.version === '1'));

    (document.chips[0] as Record<string, unknown>).rate_bps = 1200;
    const second = await applyPlan(db, org.id, { ...document, name: 'Core AE plan 2026', period: 'monthly' });
    assert.equal(second.changed, true);
    assert.equal(second.plan_id, first.plan_id);
    assert.equal(second.version, 2);
    assert.notEqual(second.version_id, first.version_id);
    assert.deepEqual(
      second.chips.map((chip) => [chip.key, chip.version, chip.change]),
      [
        ['base', '2', 'changed'],
        ['accelerator', '1', 'unchanged'],
        ['new-logo', '1', 'unchanged'],
        ['quota-bonus', '1', 'unchanged'],
      ],
    );

    const after = await plans.find(statements, org.id, first.plan_id);
    assert.equal(after?.current_version_id, second.version_id);
    assert.equal(after?.name, 'Core AE plan 2026');
    assert.equal(after?.created_at.getTime(), before?.created_at.getTime());
    assert.ok((after?.updated_at.getTime() ?? 0) > (before?.updated_at.getTime() ?? 0));
    const chipsAfter = chipsOf(await planSnapshots.snapshot(statements, org.id, first.plan_id));
    assert.deepEqual(
      chipsAfter.map((chip) => chip.id),
      chipsBefore.map((chip) => chip.id),
    );
    assert.deepEqual(
      chipsAfter.map((chip) => chip.version),
      ['2', '1', '1', '1'],
    );
    const firstVersion = await planSnapshots.snapshot(statements, org.id, first.plan_id, first.version_id);
    assert.equal(
      firstVersion?.chips[0]?.definition.kind === 'commission' && firstVersion.chips[0].definition.params.rate_bps,
      1000,
    );
    assert.deepEqual(await auditActions(org.id), ['plan.applied', 'plan.applied']);
  });

  test('renaming a chip makes a new plan version but keeps the chip version', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const document = planDocument();
    await applyPlan(db, org.id, document);
    (document.chips[2] as Record<string, unknown>).name = 'SPIFF: new logo';
    const renamed = await applyPlan(db, org.id, document);
    assert.equal(renamed.version, 2);
    assert.deepEqual(
      renamed.chips.map((chip) => chip.version),
      ['1', '1', '1', '1'],
    );
  });

  test('a raised quota raises the versions of the chips that read it', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const document = planDocument();
    await applyPlan(db, org.id, document);
    const raised = await applyPlan(db, org.id, { ...document, quota_cents: 12000000 });
    assert.deepEqual(
      raised.chips.map((chip) => [chip.key, chip.version]),
      [
        ['base', '1'],
        ['accelerator', '2'],
        ['new-logo', '1'],
        ['quota-bonus', '2'],
      ],
    );
    assert.equal((await plans.find(databaseStatements(db), org.id, raised.plan_id))?.quota_cents, 12000000);
  });

  test('a removed chip is absent from the new version; back again it keeps its id, and its version if unchanged', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const document = planDocument();
    const first = await applyPlan(db, org.id, document);
    const newLogo = first.chips.find((chip) => chip.key === 'new-logo');

    const without = await applyPlan(db, org.id, {
      ...document,
      chips: document.chips.filter((c) => c.key !== 'new-logo'),
    });
    assert.deepEqual(without.removed_chips, ['new-logo']);
    assert.deepEqual(
      chipsOf(await planSnapshots.snapshot(databaseStatements(db), org.id, first.plan_id)).map((chip) => chip.key),
      ['base', 'accelerator', 'quota-bonus'],
    );

    const back = await applyPlan(db, org.id, document);
    assert.equal(back.version, 3);
    assert.deepEqual(
      back.chips.find((chip) => chip.key === 'new-logo'),
      { ...newLogo, change: 'added' },
    );

    const changedBack = await applyPlan(db, org.id, {
      ...document,
      chips: document.chips.map((c) => (c.key === 'new-logo' ? { ...c, amount_cents: 75000 } : c)),
    });
    assert.deepEqual(
      changedBack.chips.find((chip) => chip.key === 'new-logo'),
      {
        id: newLogo?.id,
        key: 'new-logo',
        version: '2',
        change: 'changed',
      },
    );
    assert.equal((await planRows(org.id)).chips, 4, 'one chip row per key, whatever the versions');
  });

  test('a new chip is added with version 1; reordering chips makes a version and keeps every chip version', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const document = planDocument();
    await applyPlan(db, org.id, document);
    const extra = { key: 'renewal', name: 'Renewal', kind: 'commission', rate_bps: 300, base: 'custom.renewal_cents' };
    const added = await applyPlan(db, org.id, { ...document, chips: [extra, ...document.chips].reverse() });
    assert.equal(added.version, 2);
    assert.deepEqual(
      added.chips.map((chip) => [chip.key, chip.version, chip.change]),
      [
        ['quota-bonus', '1', 'unchanged'],
        ['new-logo', '1', 'unchanged'],
        ['accelerator', '1', 'unchanged'],
        ['base', '1', 'unchanged'],
        ['renewal', '1', 'added'],
      ],
    );
  });

  test('the same key in two orgs makes two independent plans', async () => {
    const db = testDatabase();
    const [orgA, orgB] = await Promise.all([createOrg(db), createOrg(db)]);
    const document = planDocument();
    const a = await applyPlan(db, orgA.id, document);
    const b = await applyPlan(db, orgB.id, document);
    assert.notEqual(a.plan_id, b.plan_id);
    assert.equal(b.changed, true);
    assert.notEqual(a.chips[0]?.id, b.chips[0]?.id);
  });

  test('concurrent applies of one new file make one plan with one version', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const document = planDocument();
    const results = await Promise.all([1, 2, 3].map(() => applyPlan(db, org.id, document)));
    assert.equal(new Set(results.map((result) => result.plan_id)).size, 1);
    assert.deepEqual(results.map((result) => result.changed).sort(), [false, false, true]);
    assert.deepEqual(await planRows(org.id), { plans: 1, versions: 1, chips: 4 });
  });

  test('a bad file writes nothing and reports every problem', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const document = planDocument();
    const first = await applyPlan(db, org.id, document);
    const rowsBefore = await planRows(org.id);
    const broken = { ...document, quota_cents: null, chips: [...document.chips, { key: 'x', kind: 'flat' }] };
    await assert.rejects(applyPlan(db, org.id, broken), (error: unknown) => {
      assert.ok(error instanceof Refusal);
      assert.equal(error.code, 'invalid_plan_file');
      assert.deepEqual(
        (error.details.problems as Array<{ path: string }>).map((problem) => problem.path),
        ['chips[1].tiers', 'chips[3].threshold_pct', 'chips[4].amount_cents', 'chips[4].name'],
      );
      return true;
    });
    assert.deepEqual(await planRows(org.id), rowsBefore);
    assert.equal(
      (await plans.find(databaseStatements(db), org.id, first.plan_id))?.current_version_id,
      first.version_id,
    );
  });
});

describe('archiving and re-applying', () => {
  test('archive sets the status and time once and writes one audit entry', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const { plan_id } = await applyPlan(db, org.id, planDocument());
    const admin = testServices({ db }).admin.planAdmin;
    const archived = await admin.archive(org.id, plan_id, noPlanChanges);
    assert.equal(archived.changed, true);
    assert.equal(archived.plan.status, 'archived');
    assert.ok(archived.plan.archived_at instanceof Date);
    const again = await admin.archive(org.id, plan_id, noPlanChanges);
    assert.equal(again.changed, false);
    assert.deepEqual(again.plan.archived_at, archived.plan.archived_at);
    assert.deepEqual(await auditActions(org.id), ['plan.applied', 'plan.archived']);
  });

  test('another org cannot archive the plan', async () => {
    const db = testDatabase();
    const [owner, other] = await Promise.all([createOrg(db), createOrg(db)]);
    const { plan_id } = await applyPlan(db, owner.id, planDocument());
    await assert.rejects(testServices({ db }).admin.planAdmin.archive(other.id, plan_id, noPlanChanges), {
      code: 'not_found',
    });
    assert.equal((await plans.find(databaseStatements(db), owner.id, plan_id))?.status, 'active');
  });

  test('re-applying the same file to an archived plan re-activates it on the same version', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const document = planDocument();
    const first = await applyPlan(db, org.id, document);
    await testServices({ db }).admin.planAdmin.archive(org.id, first.plan_id, noPlanChanges);
    const again = await applyPlan(db, org.id, document);
    assert.deepEqual(
      { changed: again.changed, reactivated: again.reactivated, version: again.version, version_id: again.version_id },
      { changed: true, reactivated: true, version: 1, version_id: first.version_id },
    );
    const plan = await plans.find(databaseStatements(db), org.id, first.plan_id);
    assert.equal(plan?.status, 'active');
    assert.equal(plan?.archived_at, null);
    assert.equal((await planRows(org.id)).versions, 1);
    assert.deepEqual(await auditActions(org.id), ['plan.applied', 'plan.archived', 'plan.applied']);
  });

  test('re-applying a changed file to an archived plan makes a new version and re-activates it', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const document = planDocument();
    const first = await applyPlan(db, org.id, document);
    await testServices({ db }).admin.planAdmin.archive(org.id, first.plan_id, noPlanChanges);
    const changed = await applyPlan(db, org.id, { ...document, period: 'quarterly' });
    assert.deepEqual(
      { changed: changed.changed, reactivated: changed.reactivated, version: changed.version },
      { changed: true, reactivated: true, version: 2 },
    );
    const plan = await plans.find(databaseStatements(db), org.id, first.plan_id);
    assert.deepEqual({ status: plan?.status, period: plan?.period }, { status: 'active', period: 'quarterly' });
  });
});

describe('the plan-change hook', () => {
  test('is told of every new version, re-activation and archive, and of nothing else', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const { listener, applied, archived } = recordingListener();
    const admin = testServices({ db }).admin.planAdmin;
    const document = planDocument();
    const apply = (doc: object) => admin.apply({ orgId: org.id, text: stringify(doc) }, listener);

    const first = await apply(document);
    await apply(document);
    const second = await apply({ ...document, chips: document.chips.slice(1) });
    await admin.archive(org.id, first.plan_id, listener);
    await admin.archive(org.id, first.plan_id, listener);
    await apply({ ...document, chips: document.chips.slice(1) });

    const [base] = first.chips;
    const others = first.chips.slice(1).map((chip) => chip.id);
    assert.deepEqual(applied, [
      {
        orgId: org.id,
        planId: first.plan_id,
        versionId: first.version_id,
        versionNumber: 1,
        previousVersionId: null,
        newVersion: true,
        reactivated: false,
        chips: { added: first.chips.map((chip) => chip.id), changed: [], unchanged: [], removed: [] },
      },
      {
        orgId: org.id,
        planId: first.plan_id,
        versionId: second.version_id,
        versionNumber: 2,
        previousVersionId: first.version_id,
        newVersion: true,
        reactivated: false,
        chips: { added: [], changed: [], unchanged: others, removed: [base?.id] },
      },
      {
        orgId: org.id,
        planId: first.plan_id,
        versionId: second.version_id,
        versionNumber: 2,
        previousVersionId: second.version_id,
        newVersion: false,
        reactivated: true,
        chips: { added: [], changed: [], unchanged: others, removed: [] },
      },
    ]);
    assert.deepEqual(archived, [{ orgId: org.id, planId: first.plan_id, versionId: second.version_id }]);
  });

  test('a failing hook rolls the whole apply back', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const failing: PlanChangeListener = {
      onPlanVersionApplied: async () => {
        throw new Error('recompute failed');
      },
      onPlanArchived: async () => {},
    };
    await assert.rejects(
      testServices({ db }).admin.planAdmin.apply({ orgId: org.id, text: stringify(planDocument()) }, failing),
      {
        message: 'recompute failed',
      },
    );
    assert.deepEqual(await planRows(org.id), { plans: 0, versions: 0, chips: 0 });
    assert.deepEqual(await auditActions(org.id), []);
  });
});
