import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';
import { describe } from 'vitest';
import type { components } from '../../generated/openapi-admin.ts';
import type { Database } from '../../src/db/prisma.ts';
import { ROWS_PER_STATEMENT } from '../../src/repositories/earningsWrites.ts';
import type { ImportSummary } from '../../src/services/dealImport.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import type { AdminClient } from '../helpers/adminClient.ts';
import { exited, onlyJson, QUOTIENT_BIN, runCli, SLOW_CLI_TEST_MS } from '../helpers/cli.ts';
import { test } from '../helpers/fixtures.ts';

type DealImportRequest = components['schemas']['DealImportRequest'];

/** The console's upload: one request to the admin API's deal import. */
function uploadDeals(client: AdminClient, body: DealImportRequest) {
  return client.api.POST('/admin/v1/deal-imports', { body });
}

const HUBSPOT = fileURLToPath(new URL('../../examples/imports/hubspot-deals.csv', import.meta.url));
const SALESFORCE = fileURLToPath(new URL('../../examples/imports/salesforce-opportunities.csv', import.meta.url));

async function importDeals(args: string[]): Promise<{ code: number | null; summary: ImportSummary }> {
  const result = await runCli(['import', 'deals', ...args, '--json']);
  return { code: result.code, summary: onlyJson(result) as ImportSummary };
}

async function csvFile(text: string, name = 'export.csv'): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'quotient-import-')), name);
  await writeFile(path, text);
  return path;
}

function counts(db: Database, orgId: string) {
  return Promise.all([
    db.sourceEvent.count({ where: { org_id: orgId } }),
    db.deal.count({ where: { org_id: orgId } }),
    db.earning.count({ where: { org_id: orgId } }),
  ]);
}

const MAPPING = `
id: Deal
stage: Phase
amount: Value
close_date: Closed
owner: Seller
default_currency: USD
won_stages: [Signed]
lost_stages: [Dropped]
custom:
  region: Territory
  seats: { column: Seats, type: number }
`;

describe('quotient import deals', () => {
  test('the HubSpot sample imports with its built-in mapping, and a second run changes nothing', {
    timeout: SLOW_CLI_TEST_MS,
  }, async ({ db, org }) => {
    await applyPlan(db, org.id, planDocument());
    const first = await importDeals([HUBSPOT, '--org', org.id]);
    assert.equal(first.code, 0, JSON.stringify(first.summary));
    assert.equal(first.summary.rows, 320);
    assert.equal(first.summary.new_deals, 320);
    assert.equal(first.summary.refused, 0);
    const won = await db.deal.count({ where: { org_id: org.id, status: 'won' } });
    assert.ok(won > 100, `${won} won deals`);
    const before = await counts(db, org.id);
    assert.ok((before[2] ?? 0) > 0, 'the plan earned on the imported deals');
    const audited = await db.auditEntry.findMany({ where: { org_id: org.id, action: 'deals.imported' } });
    assert.equal(audited.length, 1);
    assert.equal(audited[0]?.actor, 'cli');
    const details = audited[0]?.details as { new_deals?: number; source?: string } | undefined;
    assert.deepEqual([details?.new_deals, details?.source], [320, HUBSPOT]);

    const second = await importDeals([HUBSPOT, '--org', org.id]);
    assert.equal(second.code, 0);
    assert.deepEqual([second.summary.new_deals, second.summary.updates, second.summary.unchanged], [0, 0, 320]);
    assert.deepEqual(await counts(db, org.id), before);
  });

  test('the Salesforce sample is recognised from its header; a dry run applies nothing and says what would happen', {
    timeout: SLOW_CLI_TEST_MS,
  }, async ({ db, org }) => {
    const dry = await importDeals([SALESFORCE, '--org', org.id, '--dry-run']);
    assert.equal(dry.code, 0, JSON.stringify(dry.summary));
    assert.equal(dry.summary.dry_run, true);
    assert.equal((dry.summary as ImportSummary & { mapping: string }).mapping, 'salesforce');
    assert.equal(dry.summary.new_deals, 280);
    assert.deepEqual(await counts(db, org.id), [0, 0, 0]);

    const applied = await importDeals([SALESFORCE, '--org', org.id, '--mapping', 'salesforce']);
    assert.equal(applied.summary.new_deals, 280);
    const deal = await db.deal.findFirst({ where: { org_id: org.id, status: 'won' } });
    assert.ok(deal);
    assert.ok((deal.amount_cents ?? 0n) > 0n);
    assert.equal(typeof (deal.custom as { new_logo: unknown }).new_logo, 'boolean');
  });

  test('a mapping file maps columns, stages and typed custom fields; bad rows are refused by line, the rest applied', async ({
    db,
    org,
  }) => {
    const mapping = await csvFile(MAPPING, 'mapping.yaml');
    const csv = await csvFile(
      [
        'Deal,Phase,Value,Closed,Seller,Territory,Seats',
        'D-1,Signed,"1,200.50",2026-03-02,ana,EMEA,12',
        'D-2,Dropped,900,2026-03-03,ben,NA,3',
        'D-3,Signed,lots,2026-03-04,ana,NA,4',
        'D-4,Negotiating,500,2026-02-30,ben,NA,5',
        'D-5,Signed,700,2026-03-05,ana,"multi',
        'line",7',
        ',Signed,100,2026-03-06,ana,NA,1',
        'D-6,Signed,100,2026-03-06,ana,NA',
      ].join('\n'),
    );
    const dry = await importDeals([csv, '--org', org.id, '--mapping', mapping, '--dry-run']);
    assert.equal(dry.code, 2);
    assert.deepEqual(dry.summary.refusals, [
      { line: 4, reason: 'Value (column 3): "lots" is not an amount' },
      { line: 5, reason: 'Closed (column 4): "2026-02-30" is not a calendar date' },
      { line: 8, reason: 'Deal (column 1): is empty' },
      { line: 9, reason: 'has 6 fields where the header has 7' },
    ]);
    assert.equal(dry.summary.new_deals, 3);
    assert.deepEqual(await counts(db, org.id), [0, 0, 0]);

    const applied = await importDeals([csv, '--org', org.id, '--mapping', mapping]);
    assert.equal(applied.summary.new_deals, 3);
    assert.equal(applied.summary.refused, 4);
    const deals = await db.deal.findMany({ where: { org_id: org.id }, orderBy: { external_id: 'asc' } });
    assert.deepEqual(
      deals.map((deal) => [deal.external_id, deal.status]),
      [
        ['D-1', 'won'],
        ['D-2', 'lost'],
        ['D-5', 'won'],
      ],
    );
    const first = deals[0];
    assert.deepEqual(
      [first?.amount_cents, first?.stage, first?.close_date?.toISOString().slice(0, 10), first?.owner_external_id],
      [120050n, 'closed_won', '2026-03-02', 'ana'],
    );
    assert.deepEqual(first?.custom, { region: 'EMEA', seats: 12 });
    assert.deepEqual(deals[2]?.custom, { region: 'multi\nline', seats: 7 });
  });

  test('a row the CRM changed since the last import is applied as an update of its deal', async ({ db, org }) => {
    const header = 'Record ID,Deal Stage,Amount,Close Date,Deal owner\n';
    await importDeals([await csvFile(`${header}77,Contract Sent,1000,2026-04-01,kim\n`), '--org', org.id]);
    const changed = await importDeals([await csvFile(`${header}77,Closed Won,1000,2026-04-01,kim\n`), '--org', org.id]);
    assert.equal(changed.summary.updates, 1);
    const deal = await db.deal.findFirst({ where: { org_id: org.id, external_id: '77' } });
    assert.equal(deal?.status, 'won');
    assert.equal(deal?.version, 2);
  });

  test('an import killed part way, run again, applies each row exactly once and evaluates every deal it left pending', {
    timeout: SLOW_CLI_TEST_MS,
  }, async ({ db, org }) => {
    await applyPlan(db, org.id, planDocument());
    const rows = Array.from(
      { length: 3000 },
      (_, index) => `${index},Closed Won,${1000 + index},2026-0${1 + (index % 9)}-1${index % 10},rep-${index % 7}`,
    );
    const csv = await csvFile(`Record ID,Deal Stage,Amount,Close Date,Deal owner\n${rows.join('\n')}\n`);
    // Chunks of 1,000 rows, so that the file is three transactions and the kill falls between them.
    const child = spawn(process.execPath, [QUOTIENT_BIN, 'import', 'deals', csv, '--org', org.id, '--json'], {
      stdio: 'ignore',
      env: { ...process.env, QUOTIENT_IMPORT_CHUNK_ROWS: '1000' },
    });
    // Killed once some rows are in, while it is still sending.
    for (;;) {
      const sent = await db.sourceEvent.count({ where: { org_id: org.id } });
      if (sent > 0 || child.exitCode !== null) break;
      await new Promise((done) => setTimeout(done, 20));
    }
    child.kill('SIGKILL');
    await exited(child);
    const partial = await db.sourceEvent.count({ where: { org_id: org.id } });

    const resumed = await importDeals([csv, '--org', org.id]);
    assert.equal(resumed.code, 0);
    assert.equal(resumed.summary.unchanged, partial);
    assert.equal(resumed.summary.new_deals + resumed.summary.unchanged, 3000);
    assert.equal(await db.sourceEvent.count({ where: { org_id: org.id } }), 3000);
    assert.equal(await db.deal.count({ where: { org_id: org.id, version: 1 } }), 3000);
    // The deals the killed run wrote waited for their evaluation; the second run evaluated them with its own.
    assert.ok(resumed.summary.evaluated >= resumed.summary.new_deals, JSON.stringify(resumed.summary));
    assert.equal(await db.pendingEvaluation.count({ where: { org_id: org.id } }), 0);
    assert.ok((await db.earning.count({ where: { org_id: org.id } })) > 0);
    // What was evaluated is what a recompute of the whole org would leave.
    const recompute = await runCli(['recompute', '--org', org.id, '--json']);
    const changed = onlyJson(recompute) as { rows_written: number; rows_superseded: number; rows_reversed: number };
    assert.deepEqual([changed.rows_written, changed.rows_superseded, changed.rows_reversed], [0, 0, 0]);
  });

  test("a rep's deals evaluated in one decision past ROWS_PER_STATEMENT are written in slices, each row once, as a recompute leaves them", {
    timeout: SLOW_CLI_TEST_MS,
  }, async ({ db, org }) => {
    // One rep, one month, one commission line per won deal: the deferred evaluation decides the rep's period in one
    // transaction, so its rows (and a plan change's retirements) pass ROWS_PER_STATEMENT and go in slices.
    const deals = ROWS_PER_STATEMENT + 150;
    const base = planDocument({
      chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }],
    });
    await applyPlan(db, org.id, base);
    const rows = Array.from({ length: deals }, (_, index) => `${index},Closed Won,${1000 + index},2026-04-15,rep-one`);
    const csv = await csvFile(`Record ID,Deal Stage,Amount,Close Date,Deal owner\n${rows.join('\n')}\n`);
    const imported = await importDeals([csv, '--org', org.id]);
    assert.equal(imported.code, 0);
    assert.equal(imported.summary.new_deals, deals);
    const live = { org_id: org.id, status: { notIn: ['superseded', 'reversed'] } };
    const written = await db.earning.findMany({ where: live, select: { deal_id: true, amount_cents: true } });
    assert.equal(written.length, deals);
    assert.equal(new Set(written.map((row) => row.deal_id)).size, deals, 'one row per deal, none twice');
    const total = (rowsOf: Array<{ amount_cents: bigint | number }>) =>
      rowsOf.reduce((sum, row) => sum + Number(row.amount_cents), 0);
    // What was written in slices is what a full recompute of the org would leave.
    const recompute = onlyJson(await runCli(['recompute', '--org', org.id, '--json'])) as {
      rows_written: number;
      rows_superseded: number;
    };
    assert.deepEqual([recompute.rows_written, recompute.rows_superseded], [0, 0]);

    // A plan change: every row superseded and written again, both past the bound.
    await applyPlan(db, org.id, {
      ...base,
      chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1200 }],
    });
    const changed = onlyJson(await runCli(['recompute', '--org', org.id, '--json'])) as {
      rows_written: number;
      rows_superseded: number;
    };
    assert.deepEqual([changed.rows_written, changed.rows_superseded], [deals, deals]);
    const after = await db.earning.findMany({ where: live, select: { deal_id: true, amount_cents: true } });
    assert.equal(after.length, deals);
    assert.equal(await db.earning.count({ where: { org_id: org.id, status: 'superseded' } }), deals);
    assert.ok(total(after) > total(written), 'the higher rate pays more');
  });

  test('an unknown org, an unknown header and a missing mapped column refuse the file before any row', async ({
    org,
  }) => {
    const unknownOrg = await importDeals([HUBSPOT, '--org', 'org_01kaq00000000000000000000']);
    assert.equal(unknownOrg.code, 2);
    const strange = await importDeals([await csvFile('a,b\n1,2\n'), '--org', org.id]);
    assert.equal(strange.code, 2);
    assert.match((strange.summary as unknown as { reason: string }).reason, /give a mapping/);
    const mapping = await csvFile(MAPPING, 'mapping.yaml');
    const csv = await csvFile('Deal,Phase,Closed,Seller,Territory,Seats\nD-1,Signed,2026-03-02,ana,EMEA,1\n');
    const missing = await importDeals([csv, '--org', org.id, '--mapping', mapping]);
    assert.equal(missing.code, 2);
    assert.match((missing.summary as unknown as { reason: string }).reason, /no column "Value"/);
  });

  test('quotient demo --from-export loads a sample export into the demo org; run again, every row is unchanged', async ({
    db,
  }) => {
    const name = `Export demo ${process.pid} ${Date.now()}`;
    const first = await runCli(['demo', '--from-export', 'salesforce', '--org-name', name, '--json']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    const created = onlyJson(first) as {
      org: { id: string; reused: boolean };
      periods: unknown;
      import: { new_deals: number; refused: number; source: string };
      earnings: Record<string, number>;
    };
    assert.equal(created.org.reused, false);
    assert.equal(created.periods, null);
    assert.deepEqual([created.import.new_deals, created.import.refused, created.import.source], [280, 0, SALESFORCE]);
    assert.ok((created.earnings.pending ?? 0) > 0, JSON.stringify(created.earnings));
    assert.equal(await db.deal.count({ where: { org_id: created.org.id } }), 280);

    const again = onlyJson(await runCli(['demo', '--from-export', 'salesforce', '--org-name', name, '--json'])) as {
      org: { id: string; reused: boolean };
      import: { new_deals: number; unchanged: number };
      earnings: Record<string, number>;
    };
    assert.deepEqual([again.org.id, again.org.reused], [created.org.id, true]);
    assert.deepEqual([again.import.new_deals, again.import.unchanged], [0, 280]);
    assert.deepEqual(again.earnings, created.earnings);

    const missing = await runCli(['demo', '--from-export', 'pipedrive', '--org-name', name, '--json']);
    assert.equal(missing.code, 2);
    assert.match((onlyJson(missing) as { reason: string }).reason, /cannot read pipedrive/);
  });
});

describe('quotient import deals: exports as customers have them (issue 43)', () => {
  test('a Salesforce Data Export: the dry run reports reps, currencies, deleted rows and rows without owner or close date; the import applies what it said; a refused file writes nothing', {
    timeout: SLOW_CLI_TEST_MS,
  }, async ({ db, org }) => {
    await applyPlan(db, org.id, planDocument());
    const exportFile = await csvFile(
      'Id,IsDeleted,OwnerId,StageName,Amount,CurrencyIsoCode,CloseDate,IsWon,IsClosed,LastModifiedDate\r\n' +
        '006A,false,005ANN,Renewed,12500.50,EUR,2026-03-14,true,true,2026-03-14T10:00:00.000Z\r\n' +
        '006B,false,005BOB,Closed Won,1500000,JPY,2026-03-15,true,true,2026-03-15T10:00:00.000Z\r\n' +
        '006C,true,005ANN,Closed Won,999,USD,2026-03-16,true,true,2026-03-16T10:00:00.000Z\r\n' +
        '006D,false,,Prospecting,100,USD,,false,false,2026-03-17T10:00:00.000Z\r\n' +
        '006E,false,005ANN,Closed Lost,100,USD,2026-03-18,false,true,2026-03-18T10:00:00.000Z\r\n',
    );
    const dry = await importDeals([exportFile, '--org', org.id, '--dry-run']);
    assert.equal(dry.code, 0, JSON.stringify(dry.summary));
    const report = (dry.summary as unknown as { report: ImportSummary['report'] }).report;
    assert.deepEqual(
      [dry.summary.rows, dry.summary.new_deals, (dry.summary as unknown as { mapping: string }).mapping],
      [5, 4, 'salesforce-api'],
    );
    assert.deepEqual(report.new_reps.items, [
      { external_id: '005ANN', line: 2 },
      { external_id: '005BOB', line: 3 },
    ]);
    assert.deepEqual(report.deleted_rows.items, [{ line: 4, external_id: '006C' }]);
    assert.deepEqual(report.rows_without_owner.items, [5]);
    assert.deepEqual(report.rows_without_close_date.items, [5]);
    assert.deepEqual(report.open_stages, [{ stage: 'Prospecting', rows: 1, line: 5 }]);
    assert.deepEqual(
      report.currencies.map((entry) => [entry.currency, entry.rows]),
      [
        ['USD', 2],
        ['EUR', 1],
        ['JPY', 1],
      ],
    );
    assert.equal(await db.deal.count({ where: { org_id: org.id } }), 0);

    const imported = await importDeals([exportFile, '--org', org.id]);
    assert.equal(imported.code, 0, JSON.stringify(imported.summary));
    assert.equal(imported.summary.new_deals, 4);
    const stored = await db.deal.findMany({
      where: { org_id: org.id },
      select: { external_id: true, status: true, currency: true, amount_cents: true },
      orderBy: { external_id: 'asc' },
    });
    assert.deepEqual(
      stored.map((deal) => [deal.external_id, deal.status, deal.currency, Number(deal.amount_cents)]),
      [
        ['006A', 'won', 'EUR', 1250050],
        ['006B', 'won', 'JPY', 1500000],
        ['006D', 'open', 'USD', 10000],
        ['006E', 'lost', 'USD', 10000],
      ],
    );

    // Dates no row decides: the whole file is refused, by line and column, exit 2, nothing written.
    const ambiguous = await csvFile(
      'Record ID,Deal Stage,Amount,Close Date,Deal owner\n9001,closedwon,5,05/08/2025,ana\n9002,closedwon,5,03/04/2025,ana\n',
    );
    const refused = await importDeals([ambiguous, '--org', org.id]);
    assert.equal(refused.code, 2);
    assert.match(
      (refused.summary as unknown as { reason: string }).reason,
      /could be day\/month or month\/day.*line 2, Close Date \(column 4\): "05\/08\/2025"/,
    );
    assert.equal(await db.deal.count({ where: { org_id: org.id, external_id: { in: ['9001', '9002'] } } }), 0);
    // --locale en-GB reads it: 5 August.
    const gb = await importDeals([ambiguous, '--org', org.id, '--locale', 'en-GB']);
    assert.equal(gb.code, 0, JSON.stringify(gb.summary));
    const august = await db.deal.findFirst({ where: { org_id: org.id, external_id: '9001' } });
    assert.equal(august?.close_date?.toISOString().slice(0, 10), '2025-08-05');
  });

  test('ten identical rows count the same in the dry run and the import; deals missing from the next export are reported, and deleted with --missing delete (their earnings reversed); an XLSX export reads as its CSV', {
    timeout: SLOW_CLI_TEST_MS,
  }, async ({ db, org }) => {
    await applyPlan(
      db,
      org.id,
      planDocument({ chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }] }),
    );
    const header = 'Record ID,Deal Stage,Amount,Close Date,Deal owner\r\n';
    const repeated = await csvFile(
      `\ufeff${header}${'1,closedwon,5000,2026-03-14,ana\r\n'.repeat(10)}2,closedwon,7000,2026-03-14,ana\r\n3,closedwon,9000,2026-03-15,bo\r\n`,
    );
    const dry = await importDeals([repeated, '--org', org.id, '--dry-run']);
    const wet = await importDeals([repeated, '--org', org.id]);
    const countsOf = (summary: ImportSummary) => [summary.new_deals, summary.updates, summary.unchanged];
    assert.deepEqual(countsOf(dry.summary), [3, 0, 9]);
    assert.deepEqual(countsOf(wet.summary), countsOf(dry.summary));
    assert.equal(wet.summary.report.repeated_rows.count, 9);
    const earningsOf3 = async () => {
      const deal = await db.deal.findFirstOrThrow({ where: { org_id: org.id, external_id: '3' } });
      const rows = await db.earning.findMany({
        where: { org_id: org.id, deal_id: deal.id, status: { notIn: ['superseded', 'reversed'] } },
      });
      return [deal.status, rows.reduce((sum, row) => sum + Number(row.amount_cents), 0)] as const;
    };
    const [, before] = await earningsOf3();
    assert.ok(before > 0, 'deal 3 earns');

    // The next export has deals 1 and 2 only, as XLSX.
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Deals');
    sheet.addRow(['Record ID', 'Deal Stage', 'Amount', 'Close Date', 'Deal owner']);
    sheet.addRow([1, 'closedwon', 5000, new Date(Date.UTC(2026, 2, 14)), 'ana']);
    sheet.addRow([2, 'closedwon', 7000, new Date(Date.UTC(2026, 2, 14)), 'ana']);
    const xlsx = join(await mkdtemp(join(tmpdir(), 'quotient-import-')), 'deals.xlsx');
    await workbook.xlsx.writeFile(xlsx);
    const reported = await importDeals([xlsx, '--org', org.id]);
    assert.equal(reported.code, 0, JSON.stringify(reported.summary));
    assert.deepEqual(countsOf(reported.summary), [0, 0, 2], 'the XLSX rows are the CSV rows');
    assert.deepEqual(reported.summary.report.missing_deals.items, [{ external_id: '3' }]);
    assert.equal(reported.summary.report.missing_deals.action, 'reported');
    assert.equal((await earningsOf3())[0], 'won', 'report changes nothing');

    const deleted = await importDeals([xlsx, '--org', org.id, '--missing', 'delete']);
    assert.equal(deleted.code, 0, JSON.stringify(deleted.summary));
    assert.equal(deleted.summary.report.missing_deals.deleted, 1);
    assert.deepEqual(await earningsOf3(), ['deleted', 0]);
    // Run again: nothing is missing any more.
    const again = await importDeals([xlsx, '--org', org.id, '--missing', 'delete']);
    assert.deepEqual([again.summary.report.missing_deals.count, again.summary.unchanged], [0, 2]);
  });
});

describe("POST /admin/v1/deal-imports (the console's upload)", () => {
  test("a dry run then an import of the Salesforce sample into the admin's org; a second import changes nothing", async ({
    db,
    signedIn,
  }) => {
    const { org, client } = await signedIn('admin');
    const text = await readFile(SALESFORCE, 'utf8');
    const dry = await client.api.POST('/admin/v1/deal-imports', { body: { text, dry_run: true } });
    assert.equal(dry.response.status, 200);
    assert.equal(dry.data?.mapping, 'salesforce');
    assert.equal(dry.data?.new_deals, 280);
    const report = dry.data?.report;
    assert.ok(report, 'the dry run reports what the import will do');
    assert.ok(report.new_reps.count > 0, 'the reps it would create');
    assert.deepEqual(
      report.new_reps.items.map((rep) => rep.line),
      [...report.new_reps.items.map((rep) => rep.line)].sort((a, b) => a - b),
      'each by its first line, in file order',
    );
    assert.equal(
      report.currencies.reduce((rows, currency) => rows + currency.rows, 0),
      280,
    );
    assert.deepEqual([report.missing_deals.action, report.missing_deals.count], ['reported', 0]);
    assert.deepEqual(await counts(db, org.id), [0, 0, 0]);

    const applied = await client.api.POST('/admin/v1/deal-imports', { body: { text, mapping: 'salesforce' } });
    assert.equal(applied.data?.new_deals, 280);
    const again = await client.api.POST('/admin/v1/deal-imports', { body: { text } });
    assert.equal(again.data?.unchanged, 280);
    const audited = await db.auditEntry.findMany({ where: { org_id: org.id, action: 'deals.imported' } });
    assert.equal(audited.length, 2, 'each import, not the dry run');
    assert.equal(await db.sourceEvent.count({ where: { org_id: org.id } }), 280);
  });

  test("the CLI's readers and choices: an XLSX upload with missing deals deleted; a decimal-comma, en_GB-dated Windows-1252 file refused as a whole, then read by locale; bad choices are 400 and write nothing", async ({
    db,
    signedIn,
  }) => {
    const { org, client } = await signedIn('admin');
    await uploadDeals(client, {
      text: 'Record ID,Deal Stage,Amount,Close Date,Deal owner\n1,closedwon,10,2026-03-14,ana\n3,closedwon,10,2026-03-14,ana\n',
    });

    // XLSX, as HubSpot exports it by default: typed cells, no locale needed; deal 3 is not in it.
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Deals');
    sheet.addRow(['Record ID', 'Deal Stage', 'Amount', 'Close Date', 'Deal owner']);
    sheet.addRow([1, 'closedwon', 12.5, new Date(Date.UTC(2026, 2, 14)), 'ana']);
    sheet.addRow([2, 'closedwon', 7000, new Date(Date.UTC(2026, 2, 15)), 'bo']);
    const xlsx = Buffer.from(await workbook.xlsx.writeBuffer()).toString('base64');
    const dry = await uploadDeals(client, {
      file_base64: xlsx,
      dry_run: true,
      missing: 'delete',
      file_name: 'deals.xlsx',
    });
    assert.equal(dry.response.status, 200, JSON.stringify(dry.error));
    assert.equal(dry.data?.file.format, 'XLSX (its first sheet)');
    assert.deepEqual([dry.data?.new_deals, dry.data?.updates], [1, 1]);
    assert.deepEqual(
      [dry.data?.report.missing_deals.items, dry.data?.report.missing_deals.action],
      [[{ external_id: '3' }], 'deleted'],
    );
    assert.equal(await db.deal.count({ where: { org_id: org.id } }), 2, 'the dry run deletes nothing');
    const wet = await uploadDeals(client, { file_base64: xlsx, missing: 'delete' });
    assert.equal(wet.data?.report.missing_deals.deleted, 1);
    const stored = await db.deal.findMany({
      where: { org_id: org.id },
      select: { external_id: true, status: true, amount_cents: true },
      orderBy: { external_id: 'asc' },
    });
    assert.deepEqual(
      stored.map((deal) => [deal.external_id, deal.status, deal.status === 'deleted' ? 0 : Number(deal.amount_cents)]),
      [
        ['1', 'won', 1250],
        ['2', 'won', 700000],
        ['3', 'deleted', 0],
      ],
    );

    // A German Excel's CSV for an en_GB user: ';', decimal commas, day-first dates no row decides, Windows-1252.
    const csv = Buffer.from(
      'Record ID;Deal Stage;Amount;Close Date;Deal owner\r\n10;closedwon;12,50;05/08/2025;Jos\xe9\r\n11;closedwon;1.234,56;03/04/2025;Jos\xe9\r\n',
      'latin1',
    ).toString('base64');
    const before = await counts(db, org.id);
    const refusals = await Promise.all([
      uploadDeals(client, { file_base64: csv }),
      uploadDeals(client, { file_base64: csv, encoding: 'windows-1252' }),
      uploadDeals(client, { file_base64: csv, encoding: 'windows-1252', locale: 'xx_XX' }),
      uploadDeals(client, { file_base64: csv, encoding: 'ebcdic' }),
      uploadDeals(client, { file_base64: 'not base64!' }),
      uploadDeals(client, { text: 'a', file_base64: csv }),
      uploadDeals(client, { text: 'Record ID,Deal Stage\n', encoding: 'windows-1252' }),
      uploadDeals(client, { file_base64: Buffer.from('PK\u0003\u0004 not a zip').toString('base64') }),
    ]);
    assert.deepEqual(
      refusals.map((refused) => refused.response.status),
      refusals.map(() => 400),
    );
    const reasons = refusals.map((refused) => refused.error?.reason ?? '');
    assert.match(reasons[0] ?? '', /not UTF-8.*line 2/);
    assert.match(
      reasons[1] ?? '',
      /could be day\/month or month\/day.*line 2, Close Date \(column 4\): "05\/08\/2025"/,
    );
    assert.match(reasons[2] ?? '', /^locale xx_XX: not a locale Quotient reads/);
    assert.match(reasons[3] ?? '', /^encoding ebcdic: not one of/);
    assert.match(reasons[4] ?? '', /file_base64: not base64/);
    assert.match(reasons[5] ?? '', /exactly one of text/);
    assert.match(reasons[6] ?? '', /^encoding: /);
    assert.match(reasons[7] ?? '', /not an XLSX workbook/);
    assert.deepEqual(await counts(db, org.id), before, 'a refused file writes nothing');

    const de = await uploadDeals(client, { file_base64: csv, encoding: 'windows-1252', locale: 'de-DE' });
    assert.equal(de.response.status, 200, JSON.stringify(de.error));
    assert.deepEqual(
      [de.data?.file.format, de.data?.file.encoding, de.data?.file.numbers_and_dates],
      [
        "CSV separated by ';'",
        'windows-1252 (encoding)',
        'dates: day/month/year; numbers: decimal comma (from locale de-DE)',
      ],
    );
    const read = await db.deal.findMany({
      where: { org_id: org.id, external_id: { in: ['10', '11'] } },
      orderBy: { external_id: 'asc' },
    });
    assert.deepEqual(
      read.map((deal) => [deal.close_date?.toISOString().slice(0, 10), Number(deal.amount_cents)]),
      [
        ['2025-08-05', 1250],
        ['2025-04-03', 123456],
      ],
    );
    const owner = await db.user.findFirst({ where: { org_id: org.id, external_id: 'José' } });
    assert.ok(owner, 'the owner read in Windows-1252');

    // Salesforce's en_GB user locale, in its own spelling, on a CSV text: 05/08/2025 is 5 August.
    const gb = await uploadDeals(client, {
      text: 'Record ID,Deal Stage,Amount,Close Date,Deal owner\n20,closedwon,12500.00,05/08/2025,ana\n',
      locale: 'en_GB',
    });
    assert.equal(gb.data?.new_deals, 1, JSON.stringify(gb.error));
    const august = await db.deal.findFirstOrThrow({ where: { org_id: org.id, external_id: '20' } });
    assert.equal(august.close_date?.toISOString().slice(0, 10), '2025-08-05');
  });

  test("a file over the admin API's 1 MiB body limit is taken up to this operation's 8 MiB, beyond it 413 and nothing written; the currency choice reads rows that state none", async ({
    db,
    signedIn,
  }) => {
    const { org, client } = await signedIn('admin');
    // An export with a long unmapped column: about 1.5 MiB of file, 2 MiB of base64.
    const notes = 'n'.repeat(768 * 1024);
    const large = Buffer.from(
      `Record ID,Deal Stage,Amount,Close Date,Deal owner,Notes\n1,closedwon,10,2026-03-14,ana,${notes}\n2,closedwon,20,2026-03-15,ana,${notes}\n`,
    ).toString('base64');
    const taken = await uploadDeals(client, { file_base64: large, currency: 'EUR' });
    assert.equal(taken.response.status, 200, JSON.stringify(taken.error));
    assert.equal(taken.data?.new_deals, 2);
    const currencies = await db.deal.findMany({ where: { org_id: org.id }, select: { currency: true } });
    assert.deepEqual(
      currencies.map((deal) => deal.currency),
      ['EUR', 'EUR'],
    );

    const before = await counts(db, org.id);
    const tooLarge = await uploadDeals(client, { file_base64: 'A'.repeat(8 * 1024 * 1024 + 4) });
    assert.equal(tooLarge.response.status, 413);
    assert.equal(tooLarge.error?.error, 'payload_too_large');
    assert.deepEqual(await counts(db, org.id), before, 'a refused body writes nothing');
  });

  test('a mapping file and refused rows by line; an unknown header is 400; a viewer may not import', async ({
    db,
    signedIn,
  }) => {
    const { org, client } = await signedIn('admin');
    const text =
      'Deal,Phase,Value,Closed,Seller,Territory,Seats\nD-1,Signed,10,2026-03-02,ana,EMEA,1\nD-2,Signed,x,2026-03-02,ana,EMEA,1\n';
    const { data } = await client.api.POST('/admin/v1/deal-imports', { body: { text, mapping_file: MAPPING } });
    assert.deepEqual(
      [data?.new_deals, data?.refusals],
      [1, [{ line: 3, reason: 'Value (column 3): "x" is not an amount' }]],
    );
    assert.equal(await db.deal.count({ where: { org_id: org.id } }), 1);

    const unknown = await client.api.POST('/admin/v1/deal-imports', { body: { text: 'a,b\n1,2\n' } });
    assert.equal(unknown.response.status, 400);
    assert.match(unknown.error?.reason ?? '', /give a mapping/);

    const viewer = await signedIn('viewer', org.id);
    const refused = await viewer.client.api.POST('/admin/v1/deal-imports', { body: { text } });
    assert.equal(refused.response.status, 403);
  });
});
