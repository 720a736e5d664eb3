import assert from 'node:assert/strict';
import { afterAll, describe, test } from 'vitest';
import type { PeriodId } from '../../src/domain/periods.ts';
import * as audit from '../../src/repositories/audit.ts';
import * as periods from '../../src/repositories/periods.ts';
import { databaseStatements, inPrismaTransaction } from '../../src/repositories/transaction.ts';
import type { PeriodChangeListener, PeriodStatusChange } from '../../src/services/periodChanges.ts';
import { createOrg } from '../factories/access.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { closeTestDatabase, testDatabase } from '../helpers/database.ts';
import { noPeriodChanges } from '../helpers/listeners.ts';
import { testServices } from '../helpers/services.ts';

/** The composed period admin with `listener` in place of the ledger (still wrapped in the period webhooks). */
function periodAdmin(listener: PeriodChangeListener = noPeriodChanges) {
  return testServices({ listeners: { periods: listener } }).admin.periods;
}

afterAll(closeTestDatabase);

async function auditEntries(orgId: string) {
  const entries = await audit.listForOrg(databaseStatements(testDatabase()), orgId, { limit: 100 });
  return entries.reverse().map((entry) => [entry.action, (entry.details as { period_id?: string }).period_id]);
}

/** Ensures the period as booking and locking do, then reads it back. */
async function ensure(orgId: string, periodId: PeriodId) {
  const db = testDatabase();
  await inPrismaTransaction(db, (tx) => periods.ensurePeriods(tx, orgId, [periodId]));
  const period = (await periods.listForOrg(databaseStatements(db), orgId)).find((found) => found.id === periodId);
  assert.ok(period, `period ${periodId} was not created`);
  return period;
}

describe('quotient periods (CLI)', () => {
  test('open → locked → paid, each printed with its times; list shows the periods oldest first', async () => {
    const org = await createOrg(testDatabase());
    await ensure(org.id, '2026-05');
    await ensure(org.id, '2026-Q2');
    await ensure(org.id, '2026-04');

    const locked = await runCli(['periods', 'lock', '2026-04', '--org', org.id, '--json']);
    assert.equal(locked.code, 0, locked.stderr);
    const lockedPeriod = onlyJson(locked) as Record<string, unknown>;
    assert.deepEqual(
      { ...lockedPeriod, locked_at: typeof lockedPeriod.locked_at },
      {
        id: '2026-04',
        kind: 'monthly',
        starts_on: '2026-04-01',
        ends_on: '2026-04-30',
        status: 'locked',
        locked_at: 'string',
        paid_at: null,
        reopened_at: null,
        changed: true,
        rows_moved: 0,
      },
    );
    const paid = await runCli(['periods', 'mark-paid', '2026-04', '--org', org.id, '--json']);
    assert.equal(paid.code, 0, paid.stderr);
    assert.equal((onlyJson(paid) as { status: string }).status, 'paid');

    const listed = await runCli(['periods', 'list', '--org', org.id, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const { periods } = onlyJson(listed) as { periods: Array<Record<string, unknown>> };
    assert.deepEqual(
      periods.map((period) => [period.id, period.kind, period.starts_on, period.ends_on, period.status]),
      [
        ['2026-04', 'monthly', '2026-04-01', '2026-04-30', 'paid'],
        ['2026-Q2', 'quarterly', '2026-04-01', '2026-06-30', 'open'],
        ['2026-05', 'monthly', '2026-05-01', '2026-05-31', 'open'],
      ],
    );
    assert.deepEqual(await auditEntries(org.id), [
      ['period.locked', '2026-04'],
      ['period.paid', '2026-04'],
    ]);
  });

  test('mark-paid of an open period is refused with exit 2 and says to lock it first', async () => {
    const org = await createOrg(testDatabase());
    await ensure(org.id, '2026-03');
    const result = await runCli(['periods', 'mark-paid', '2026-03', '--org', org.id, '--json']);
    assert.equal(result.code, 2);
    assert.deepEqual(onlyJson(result), {
      error: 'invalid_state',
      reason: `period 2026-03 is open; lock it first (quotient periods lock 2026-03 --org ${org.id})`,
    });
    const human = await runCli(['periods', 'mark-paid', '2026-03', '--org', org.id]);
    assert.equal(human.code, 2);
    assert.match(human.stderr, /^quotient: period 2026-03 is open; lock it first/m);
  });

  test('refusals: a malformed period id, an unknown period, an unknown org', async () => {
    const org = await createOrg(testDatabase());
    const malformed = await runCli(['periods', 'lock', '2026-13', '--org', org.id, '--json']);
    assert.equal(malformed.code, 2);
    assert.deepEqual(onlyJson(malformed), {
      error: 'invalid_argument',
      reason: '"2026-13" is not a period id: use YYYY-MM (a month) or YYYY-Qn (a quarter)',
    });
    const unknown = await runCli(['periods', 'mark-paid', '2026-02', '--org', org.id, '--json']);
    assert.equal(unknown.code, 2);
    assert.deepEqual(onlyJson(unknown), { error: 'not_found', reason: `org ${org.id} has no period 2026-02` });
    const noOrg = await runCli(['periods', 'list', '--org', 'org_nope', '--json']);
    assert.equal(noOrg.code, 2);
    assert.deepEqual(onlyJson(noOrg), { error: 'not_found', reason: 'no org org_nope' });
  });
});

describe('period transitions', () => {
  test('locking a period nobody booked into yet creates it locked', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const { period, changed } = await periodAdmin().lock(org.id, '2026-Q3');
    assert.equal(changed, true);
    assert.deepEqual(
      { id: period.id, kind: period.kind, starts_on: period.starts_on, ends_on: period.ends_on, status: period.status },
      { id: '2026-Q3', kind: 'quarterly', starts_on: '2026-07-01', ends_on: '2026-09-30', status: 'locked' },
    );
    assert.deepEqual(
      (await periodAdmin().list(org.id)).map((p) => [p.id, p.status]),
      [['2026-Q3', 'locked']],
    );
  });

  test('repeating a transition changes nothing and writes no audit entry', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const admin = periodAdmin();
    const first = await admin.lock(org.id, '2026-01');
    const again = await admin.lock(org.id, '2026-01');
    assert.equal(again.changed, false);
    assert.deepEqual(again.period.locked_at, first.period.locked_at);
    await admin.markPaid(org.id, '2026-01');
    const paidAgain = await admin.markPaid(org.id, '2026-01');
    assert.equal(paidAgain.changed, false);
    assert.deepEqual(await auditEntries(org.id), [
      ['period.locked', '2026-01'],
      ['period.paid', '2026-01'],
    ]);
  });

  test('a paid period cannot be locked again', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const admin = periodAdmin();
    await admin.lock(org.id, '2025-12');
    await admin.markPaid(org.id, '2025-12');
    await assert.rejects(admin.lock(org.id, '2025-12'), {
      code: 'invalid_state',
      message: /^period 2025-12 is paid \(since .+\); it cannot be locked again$/,
    });
  });

  test('periods belong to one org', async () => {
    const db = testDatabase();
    const [owner, other] = await Promise.all([createOrg(db), createOrg(db)]);
    await periodAdmin().lock(owner.id, '2026-06');
    assert.deepEqual(await periodAdmin().list(other.id), []);
    await assert.rejects(periodAdmin().markPaid(other.id, '2026-06'), { code: 'not_found' });
  });

  test('the period hook is told of each status change, inside the transaction', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const seen: Array<[string, PeriodStatusChange]> = [];
    const listener: PeriodChangeListener = {
      onPeriodLocked: async (_tx, change) => {
        seen.push(['locked', change]);
      },
      onPeriodPaid: async (_tx, change) => {
        seen.push(['paid', change]);
      },
    };
    const admin = periodAdmin(listener);
    await ensure(org.id, '2026-07');
    await admin.lock(org.id, '2026-07');
    await admin.lock(org.id, '2026-07');
    await admin.markPaid(org.id, '2026-07');
    await admin.lock(org.id, '2026-08');
    assert.deepEqual(
      seen.map(([what, change]) => [what, change.period.id, change.period.status, change.existedBefore]),
      [
        ['locked', '2026-07', 'locked', true],
        ['paid', '2026-07', 'paid', true],
        ['locked', '2026-08', 'locked', false],
      ],
    );
  });

  test('a failing hook leaves the period as it was', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    await ensure(org.id, '2026-09');
    const failing: PeriodChangeListener = {
      onPeriodLocked: async () => {
        throw new Error('approval failed');
      },
      onPeriodPaid: async () => {},
    };
    await assert.rejects(periodAdmin(failing).lock(org.id, '2026-09'), {
      message: 'approval failed',
    });
    const [period] = await periodAdmin().list(org.id);
    assert.equal(period?.status, 'open');
    assert.deepEqual(await auditEntries(org.id), []);
  });

  test('ensuring a period creates it open once; concurrent callers get the same row', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const periods = await Promise.all([1, 2, 3, 4].map(() => ensure(org.id, '2026-10')));
    assert.ok(periods.every((period) => period.status === 'open' && period.kind === 'monthly'));
    assert.equal(await db.period.count({ where: { org_id: org.id } }), 1);
    await periodAdmin().lock(org.id, '2026-10');
    assert.equal((await ensure(org.id, '2026-10')).status, 'locked', 'ensure never reopens a period');
  });

  test('concurrent locks of a new period lock it once', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const results = await Promise.all([1, 2, 3].map(() => periodAdmin().lock(org.id, '2026-11')));
    assert.deepEqual(results.map((result) => result.changed).sort(), [false, false, true]);
    assert.deepEqual(await auditEntries(org.id), [['period.locked', '2026-11']]);
  });
});
