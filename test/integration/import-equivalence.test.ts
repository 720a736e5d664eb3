import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../src/db/prisma.ts';
import { newId } from '../../src/lib/ids.ts';
import * as dealsBulk from '../../src/repositories/dealsBulk.ts';
import { inPrismaTransaction } from '../../src/repositories/transaction.ts';
import type { ImportSummary } from '../../src/services/dealImport.ts';
import { dealEvent } from '../factories/deals.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { onlyJson, runCli, SLOW_CLI_TEST_MS } from '../helpers/cli.ts';
import { test } from '../helpers/fixtures.ts';

// An import's deals and earnings are those of its events sent one by one (issue 43): the import applies a chunk's
// rows in a few statements and evaluates each rep's periods once after its last chunk, where POST /v1/deals/events
// applies and evaluates every event in its own transaction. The same events (the bodies the import recorded, in the
// order it recorded them) sent one by one into a second org with the same plan must leave the same deals and the
// same live earnings rows: each rep's, period's, chip's and deal's amount and status. (Not each row's trace: a line
// whose amount an event leaves as it was keeps its row, and the trace written with it, so which trace stands depends
// on the order the changes came in; see docs/day-one.md, "While an import runs".)

const HEADER =
  'Record ID,Deal Name,Deal Stage,Pipeline,Amount,Close Date,Last Modified Date,Deal owner,Currency,Region,New Logo';
const STAGES = ['Closed Won', 'Closed Won', 'Closed Won', 'Closed Lost', 'Contract Sent'];
const REGIONS = ['EMEA', 'NA', 'APAC'];

/** A HubSpot export of `deals` rows over four reps and five months; `round` changes some rows' stage and amount. */
function exportText(deals: number, round: number): string {
  const lines = [HEADER];
  for (let index = 0; index < deals; index++) {
    const changed = round > 1 && index % 3 === 0;
    const stage = STAGES[(index + (changed ? 1 : 0)) % STAGES.length] as string;
    const amount = 20_000 + ((index * 7_919) % 45_000) + (changed ? 5_000 : 0);
    const month = 1 + (index % 5);
    const day = 1 + (index % 27);
    const close = `2026-0${month}-${String(day).padStart(2, '0')}`;
    lines.push(
      `${30_000 + index},Deal ${index},${stage},Sales Pipeline,${amount}.00,${close} 12:00,${close} ${changed ? 15 : 10}:00,` +
        `Rep ${index % 4},USD,${REGIONS[index % 3]},${index % 4 === 0}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function importFile(text: string, orgId: string): Promise<ImportSummary> {
  const path = join(await mkdtemp(join(tmpdir(), 'quotient-import-equivalence-')), 'export.csv');
  await writeFile(path, text);
  const result = await runCli(['import', 'deals', path, '--org', orgId, '--json']);
  assert.equal(result.code, 0, result.stderr);
  return onlyJson(result) as ImportSummary;
}

/**
 * The org's deals, every column an event sets (the import writes a new deal once, in its final state, where the
 * single endpoint inserts it and then applies the event), with each deal's last domain event as its own.
 */
async function dealsOf(db: Database, orgId: string) {
  const rows = await db.deal.findMany({
    where: { org_id: orgId },
    select: {
      external_id: true,
      stage: true,
      amount_cents: true,
      close_date: true,
      owner_external_id: true,
      custom: true,
      splits: true,
      currency: true,
      status: true,
      version: true,
      last_occurred_at: true,
      won_at: true,
      created_at: true,
      updated_at: true,
      user: { select: { external_id: true } },
      domain_events: { select: { id: true } },
      last_domain_event_id: true,
    },
    orderBy: { external_id: 'asc' },
  });
  return rows.map(({ amount_cents, user, domain_events, last_domain_event_id, created_at, updated_at, ...row }) => {
    assert.ok(
      domain_events.some((event) => event.id === last_domain_event_id),
      `deal ${row.external_id}: its last domain event is one of its own`,
    );
    assert.ok(created_at <= updated_at, `deal ${row.external_id}: created no later than updated`);
    return {
      ...row,
      amount_cents: Number(amount_cents),
      rep: user?.external_id ?? null,
      domain_events: domain_events.length,
    };
  });
}

async function liveEarningsOf(db: Database, orgId: string) {
  // The chip by its key (a row's stored trace no longer holds the chip's definition: it is rebuilt when served).
  const chips = await db.chip.findMany({ where: { org_id: orgId }, select: { id: true, key: true } });
  const chipKeys = new Map(chips.map((chip) => [chip.id, chip.key]));
  const rows = await db.earning.findMany({
    where: { org_id: orgId, status: { notIn: ['superseded', 'reversed'] } },
    select: {
      period_id: true,
      amount_cents: true,
      currency: true,
      status: true,
      rule_chip_id: true,
      deal: { select: { external_id: true } },
      user: { select: { external_id: true } },
    },
  });
  return rows
    .map((row) => ({
      deal: row.deal?.external_id ?? null,
      rep: row.user.external_id,
      period: row.period_id,
      amount_cents: Number(row.amount_cents),
      currency: row.currency,
      status: row.status,
      chip: chipKeys.get(row.rule_chip_id) ?? null,
    }))
    .sort((a, b) => {
      const key = (row: typeof a) => JSON.stringify([row.rep, row.period, row.chip, row.deal]);
      return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
    });
}

test('an import leaves the deals and earnings of its events sent one by one, a first export and the next', {
  timeout: SLOW_CLI_TEST_MS,
}, async ({ db, newOrg }) => {
  const imported = await newOrg();
  const sent = await newOrg();
  const plan = planDocument();
  await applyPlan(db, imported.org.id, plan);
  await applyPlan(db, sent.org.id, plan);

  const first = await importFile(exportText(60, 1), imported.org.id);
  assert.equal(first.new_deals, 60);
  const second = await importFile(exportText(60, 2), imported.org.id);
  assert.deepEqual([second.updates, second.unchanged], [20, 40]);

  // The events as the import recorded them, in its order, each to the single endpoint.
  const bodies = await db.sourceEvent.findMany({
    where: { org_id: imported.org.id },
    select: { body: true },
    orderBy: [{ received_at: 'asc' }, { id: 'asc' }],
  });
  assert.equal(bodies.length, 80);
  for (const { body } of bodies) {
    await sent.client.deals.ingestEvent(body as Parameters<typeof sent.client.deals.ingestEvent>[0]);
  }

  assert.deepEqual(await dealsOf(db, imported.org.id), await dealsOf(db, sent.org.id));
  const importedEarnings = await liveEarningsOf(db, imported.org.id);
  assert.ok(importedEarnings.length > 60, `${importedEarnings.length} live rows`);
  assert.ok(
    importedEarnings.some((row) => row.amount_cents > 0 && row.chip === 'accelerator'),
    'a rep passed quota: the accelerator paid',
  );
  assert.deepEqual(importedEarnings, await liveEarningsOf(db, sent.org.id));
});

test("a new deal of an import that another writer created meanwhile is left to that deal's update: nothing is written for it", async ({
  db,
  newOrg,
}) => {
  const { org, client } = await newOrg();
  const body = dealEvent({}, { stage: 'closed_won' });
  await client.deals.ingestEvent(body);
  const outcome = await inPrismaTransaction(db, (tx) =>
    dealsBulk.applyEvents(tx, org.id, [
      {
        stale: false,
        dealId: newId('deal'),
        newExternalId: body.external_id,
        domainEventId: newId('de'),
        sourceEventId: newId('se'),
        type: 'deal.updated',
        eventTypeHint: 'deal.updated',
        changes: [],
        occurredAt: null,
        state: { amount_cents: 1, stage: 'closed_won', close_date: null, owner_external_id: null, custom: {} },
        splits: null,
        currency: 'USD',
        status: 'won',
        userId: null,
        lastOccurredAt: null,
        becameWon: false,
      },
    ]),
  );
  assert.deepEqual(outcome, [{ taken: true }]);
  const deals = await db.deal.findMany({ where: { org_id: org.id }, select: { amount_cents: true, version: true } });
  assert.deepEqual(deals, [{ amount_cents: 5_000_000n, version: 1 }]);
  assert.equal(await db.domainEvent.count({ where: { org_id: org.id } }), 1);
});
