import assert from 'node:assert/strict';
import { afterAll, describe, test } from 'vitest';
import { stringify } from 'yaml';
import { Refusal } from '../../src/domain/refusal.ts';
import * as scenarioRows from '../../src/repositories/scenarios.ts';
import { databaseStatements } from '../../src/repositories/transaction.ts';
import { createOrg } from '../factories/access.ts';
import { applyPlan, planDocument, planFile } from '../factories/plans.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { closeTestDatabase, testDatabase } from '../helpers/database.ts';
import { state } from '../helpers/earnings.ts';
import { ingestRequest } from '../helpers/ingestRequests.ts';
import { testServices } from '../helpers/services.ts';

// Plan scenarios (docs/scenarios.md) over an org's locked March and April: two reps under the worked example's plan,
// a draft with a 12% base, and the current plan itself as a draft, whose lines must be the ledger's own.

afterAll(closeTestDatabase);

const OWN_TABLES = new Set(['scenarios', 'scenario_results']);

/** Every other table's rows of the org (all rows of a table without org_id), as text, read from the catalog. */
async function everyOtherTable(orgId: string): Promise<Record<string, string[]>> {
  const db = testDatabase();
  const tables = await db.$queryRawUnsafe<Array<{ table: string; scoped: boolean }>>(
    `SELECT t.table_name AS table,
            EXISTS (SELECT 1 FROM information_schema.columns c
                    WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.column_name = 'org_id')
              AS scoped
     FROM information_schema.tables t
     WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE' ORDER BY t.table_name`,
  );
  assert.ok(tables.some((table) => table.table === 'scenario_results'));
  const contents: Record<string, string[]> = {};
  for (const { table, scoped } of tables) {
    if (OWN_TABLES.has(table)) continue;
    const where = table === 'orgs' ? 'WHERE t.id = $1' : scoped ? 'WHERE t.org_id = $1' : 'WHERE $1::text IS NOT NULL';
    const rows = await db.$queryRawUnsafe<Array<{ row: string }>>(
      `SELECT t::text AS row FROM "${table}" t ${where} ORDER BY 1`,
      orgId,
    );
    contents[table] = rows.map((row) => row.row);
  }
  return contents;
}

async function orgWithHistory() {
  const db = testDatabase();
  const services = testServices({ db });
  const org = await createOrg(db);
  const current = planDocument();
  await applyPlan(db, org.id, current);
  const deals = [
    { external_id: 'opp-a', state: state(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }) },
    { external_id: 'opp-b', state: state(5_000_000, 'closed_won', '2026-04-20', { region: 'NA', new_logo: true }) },
    {
      external_id: 'opp-c',
      state: { ...state(3_000_000, 'closed_won', '2026-03-05', { region: 'NA' }), owner_external_id: 'rep-018' },
    },
    // Open, and outside the span: never counted.
    { external_id: 'opp-d', state: state(9_000_000, 'proposal', '2026-07-01', { region: 'NA' }) },
  ];
  for (const deal of deals) await services.api.ingestion.ingest(ingestRequest(org.id, deal));
  await services.admin.periods.lock(org.id, '2026-03');
  await services.admin.periods.lock(org.id, '2026-04');
  return { db, services, org, current };
}

const CLI = { kind: 'cli' } as const;

describe('plan scenarios', () => {
  test('a draft over locked history: per rep and period, the chips that moved it, and nothing else written', async () => {
    const { services, org, current } = await orgWithHistory();
    const scenarios = services.admin.scenarios;
    const draft = {
      ...current,
      chips: current.chips.map((chip) => (chip.key === 'base' ? { ...chip, rate_bps: 1200 } : chip)),
    };
    const before = await everyOtherTable(org.id);

    const started = await scenarios.start({
      orgId: org.id,
      text: stringify(draft),
      from: '2026-03',
      to: '2026-04',
      name: 'Base at 12%',
      actor: CLI,
    });
    assert.equal(started.status, 'queued');
    await scenarios.settled(started.id);
    const done = await scenarios.find(org.id, started.id);
    assert.equal(done.status, 'done');
    assert.equal(done.reps_done, done.reps_total);
    assert.deepEqual(await everyOtherTable(org.id), before);

    const summary = done.summary;
    assert.ok(summary);
    // rep-017 in April: 11,000.00 base + 500.00 accelerator + 500.00 new logo + 2,000.00 bonus; rep-018 in March:
    // 3,000.00 base. At 12%: 2,200.00 and 600.00 more.
    assert.equal(summary.actual_cents, 1_400_000 + 300_000);
    assert.equal(summary.scenario_cents, 1_620_000 + 360_000);
    assert.equal(summary.booked_cents, 14_000_000);
    assert.equal(summary.distribution.better_off, 2);
    assert.deepEqual(summary.distribution.largest_gain, { user_external_id: 'rep-017', difference_cents: 220_000 });
    assert.deepEqual(
      summary.periods.map((period) => [period.period_id, period.actual_cents, period.scenario_cents]),
      [
        ['2026-03', 300_000, 360_000],
        ['2026-04', 1_400_000, 1_620_000],
      ],
    );
    const { reps, next } = await scenarios.reps(org.id, started.id, null, 1);
    assert.equal(reps[0]?.user_external_id, 'rep-017');
    assert.deepEqual(reps[0]?.chips, [
      { chip_key: 'base', actual_cents: 1_100_000, scenario_cents: 1_320_000, difference_cents: 220_000 },
    ]);
    assert.equal(next, 'rep-017');
    const rest = await scenarios.reps(org.id, started.id, next, 10);
    assert.deepEqual(
      rest.reps.map((rep) => [rep.user_external_id, rep.difference_cents]),
      [['rep-018', 60_000]],
    );

    // A line's trace is the engine's, evaluated again for its rep.
    const line = reps[0]?.lines.find((each) => each.chip_key === 'base');
    assert.ok(line);
    const target = await scenarios.lineTrace(org.id, started.id, line.line_key);
    assert.equal(target.earned_cents, line.cents);
    assert.equal(target.trace.chip.key, 'base');

    const kept = await scenarios.keep(org.id, started.id, 'Base at 12%, kept', true);
    assert.deepEqual([kept.kept, kept.name], [true, 'Base at 12%, kept']);
  });

  test("the current plan as a draft: the scenario's lines are the ledger's rows, line for line", async () => {
    const { db, services, org, current } = await orgWithHistory();
    const started = await services.admin.scenarios.start({
      orgId: org.id,
      text: stringify(current),
      from: '2026-03',
      to: '2026-04',
      actor: CLI,
    });
    await services.admin.scenarios.settled(started.id);
    const done = await services.admin.scenarios.find(org.id, started.id);
    assert.equal(done.summary?.difference_cents, 0);
    const { reps } = await services.admin.scenarios.reps(org.id, started.id, null, 10);
    const lines = reps.flatMap((rep) => rep.lines.map((line) => `${line.line_key} ${line.cents}`)).sort();
    const rows = await db.$queryRawUnsafe<Array<{ line: string }>>(
      `SELECT line_key || ' ' || amount_cents AS line FROM earnings
       WHERE org_id = $1 AND status IN ('pending', 'approved', 'paid') AND amount_cents <> 0 ORDER BY 1`,
      org.id,
    );
    assert.deepEqual(lines, rows.map((row) => row.line).sort());
    assert.ok(lines.length >= 5);
  });

  test('cancel stops a run before its next batch; refusals name the file or the span', async () => {
    const db = testDatabase();
    const services = testServices({ db });
    const org = await createOrg(db);
    const current = planDocument();
    const started = await services.admin.scenarios.start({
      orgId: org.id,
      text: stringify(current),
      from: '2026-03',
      to: '2026-04',
      actor: CLI,
    });
    const cancelled = await services.admin.scenarios.cancel(org.id, started.id);
    assert.equal(cancelled.status, 'cancelled');
    await services.admin.scenarios.settled(started.id);
    assert.equal((await services.admin.scenarios.find(org.id, started.id)).status, 'cancelled');
    await assert.rejects(
      services.admin.scenarios.promote(org.id, started.id, CLI),
      (error) => error instanceof Refusal && error.code === 'invalid_state',
    );

    const refusal = (code: string) => (error: unknown) => error instanceof Refusal && error.code === code;
    await assert.rejects(
      services.admin.scenarios.start({ orgId: org.id, text: 'key: [', from: '2026-03', to: '2026-04', actor: CLI }),
      refusal('invalid_plan_file'),
    );
    const text = stringify(current);
    await assert.rejects(
      services.admin.scenarios.start({ orgId: org.id, text, from: '2026-05', to: '2026-04', actor: CLI }),
      refusal('invalid_body'),
    );
    await assert.rejects(
      services.admin.scenarios.start({ orgId: org.id, text, from: '2026-03', to: '2099-04', actor: CLI }),
      refusal('invalid_body'),
    );
    await assert.rejects(
      services.admin.scenarios.start({
        orgId: org.id,
        text,
        from: '2026-03',
        to: '2026-04',
        comparePlanKey: 'nope',
        actor: CLI,
      }),
      refusal('not_found'),
    );
  });

  test('quotient plans simulate: a table, --csv, --json (one document), and refusals exit 2', async () => {
    const { org, current } = await orgWithHistory();
    const draft = await planFile({
      ...current,
      chips: current.chips.map((chip) => (chip.key === 'base' ? { ...chip, rate_bps: 1200 } : chip)),
    });
    const span = ['--org', org.id, '--from', '2026-03', '--to', '2026-04'];
    const human = await runCli(['plans', 'simulate', draft, ...span]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /rep-017\s+14,000\.00\s+16,200\.00\s+2,200\.00\s+55\.00%\s+base 2,200\.00/);
    assert.match(human.stdout, /Total: actual 17,000\.00, scenario 19,800\.00, difference 2,800\.00/);

    const csv = await runCli(['plans', 'simulate', draft, ...span, '--csv']);
    assert.equal(csv.code, 0, csv.stderr);
    assert.deepEqual(csv.stdout.trim().split(/\r?\n/), [
      'rep,period,actual_cents,scenario_cents,difference_cents,booked_cents,attainment_bps',
      'rep-017,2026-03,0,0,0,0,0',
      'rep-017,2026-04,1400000,1620000,220000,11000000,11000',
      'rep-018,2026-03,300000,360000,60000,3000000,3000',
      'rep-018,2026-04,0,0,0,0,0',
    ]);

    const json = await runCli(['plans', 'simulate', draft, ...span, '--json']);
    assert.equal(json.code, 0, json.stderr);
    const document = onlyJson(json) as { scenario: { status: string; summary: { difference_cents: number } } };
    assert.equal(document.scenario.status, 'done');
    assert.equal(document.scenario.summary.difference_cents, 280_000);

    const open = await runCli([
      'plans',
      'simulate',
      draft,
      '--org',
      org.id,
      '--from',
      '2026-03',
      '--to',
      '2099-01',
      '--json',
    ]);
    assert.equal(open.code, 2);
    assert.equal((onlyJson(open) as { error: string }).error, 'invalid_argument');
    const bad = await runCli(['plans', 'simulate', await planFile({ key: 'x' }), ...span]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /problem/);
  });

  test('a run its process left (killed mid-run) is resumed by the next process where it stopped; old ones are swept', async () => {
    const { db, services, org, current } = await orgWithHistory();
    const scenarios = services.admin.scenarios;
    const text = stringify({
      ...current,
      chips: current.chips.map((chip) => (chip.key === 'base' ? { ...chip, rate_bps: 1200 } : chip)),
    });
    const span = { orgId: org.id, text, from: '2026-03', to: '2026-04', actor: CLI };
    const whole = await scenarios.start(span);
    await scenarios.settled(whole.id);
    const reference = await scenarios.find(org.id, whole.id);
    const [first] = await scenarioRows.allResults(databaseStatements(db), org.id, whole.id);
    assert.ok(first);

    // A process ran the first batch (one rep) of a scenario and was killed: running, its heartbeat an hour old.
    const statements = databaseStatements(db);
    const row = { orgId: org.id, name: null, planFile: text, planKey: current.key, comparePlanKey: current.key };
    const killed = await scenarioRows.create(statements, {
      ...row,
      id: `scn_killed_${org.id}`,
      from: '2026-03',
      to: '2026-04',
      createdBy: null,
      leaseId: 'killed',
    });
    assert.ok(await scenarioRows.markRunning(statements, org.id, killed.id, 2, 'killed'));
    assert.ok(await scenarioRows.recordBatch(statements, org.id, killed.id, [first], 'killed'));
    // Another held by a live process (a fresh heartbeat): not taken over.
    const live = await scenarioRows.create(statements, {
      ...row,
      id: `scn_live_${org.id}`,
      from: '2026-03',
      to: '2026-04',
      createdBy: null,
      leaseId: 'live',
    });
    await db.$executeRawUnsafe(
      `UPDATE scenarios SET heartbeat_at = now() - interval '1 hour' WHERE org_id = $1 AND id = $2`,
      org.id,
      killed.id,
    );

    const resumed = await scenarios.resumeInterrupted();
    assert.ok(resumed.includes(killed.id));
    assert.ok(!resumed.includes(live.id));
    await scenarios.settled(killed.id);
    const done = await scenarios.find(org.id, killed.id);
    assert.equal(done.status, 'done');
    assert.deepEqual([done.reps_done, done.reps_total], [2, 2]);
    assert.deepEqual(done.summary, reference.summary);
    // The killed process's lease is gone: were it still writing, its batch would not count.
    assert.equal(await scenarioRows.recordBatch(statements, org.id, killed.id, [first], 'killed'), false);
    assert.equal((await scenarios.find(org.id, live.id)).status, 'queued');
    await scenarios.cancel(org.id, live.id);

    // The sweep: ended, not kept and older than the retention (30 days) goes, with its results; a kept one stays.
    await scenarios.keep(org.id, killed.id, 'kept', true);
    await db.$executeRawUnsafe(
      `UPDATE scenarios SET finished_at = now() - interval '31 days' WHERE org_id = $1`,
      org.id,
    );
    assert.ok((await scenarios.sweep()) >= 2);
    const left = await scenarios.list(org.id);
    assert.deepEqual(
      left.map((each) => each.id),
      [killed.id],
    );
    const results = await db.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM scenario_results WHERE org_id = $1 AND scenario_id = $2`,
      org.id,
      whole.id,
    );
    assert.equal(results[0]?.n, 0);
  });
});
