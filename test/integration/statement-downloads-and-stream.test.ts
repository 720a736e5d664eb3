import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { QuotientClient } from '../../sdk/src/index.ts';
import { formatMinorUnits } from '../../src/domain/currencies.ts';
import type { RunningServer } from '../../src/main.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { testDatabase } from '../helpers/database.ts';
import { state } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { pdfText } from '../helpers/pdfText.ts';
import { repClient, repWorld } from '../helpers/repWorld.ts';

// A statement as a CSV download (by `format` and by Accept, the JSON answer unchanged), and the stream of earnings
// changes (server-sent events), against the real server, which validates its answers against the contract.

function statementUrl(server: RunningServer, userId: string, periodId: string, query = ''): string {
  return `${server.url}/v1/users/${userId}/statements/${periodId}${query}`;
}

async function wonDeals(orgId: string, client: QuotientClient) {
  await applyPlan(testDatabase(), orgId, planDocument());
  await client.deals.ingestEvent({
    external_id: 'opp-a',
    state: state(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
  });
  await client.deals.ingestEvent({
    external_id: '=HYPERLINK("x")',
    state: state(5_000_000, 'closed_won', '2026-04-20', { region: 'NA', new_logo: true }),
  });
  const rep = await client.users.findByExternalId('rep-017');
  assert.ok(rep);
  return rep;
}

/** RFC 4180 rows (the file's cells hold no line breaks but may hold quoted commas). */
function parseCsv(text: string): string[][] {
  return text
    .split('\r\n')
    .filter((line) => line !== '')
    .map((line) =>
      [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) =>
        (m[1] ?? '').replace(/^"|"$/g, '').replace(/""/g, '"'),
      ),
    )
    .map((cells) => cells.slice(0, 14));
}

describe('GET /v1/users/{id}/statements/{period_id} as CSV and PDF', () => {
  test('format=csv answers a file whose rows are the statement rows, summing to its totals', async ({
    server,
    org,
    client,
    rawKey,
  }) => {
    const rep = await wonDeals(org.id, client);
    const statement = await client.statements.get(rep.id, '2026-04');
    const response = await fetch(statementUrl(server, rep.id, '2026-04', '?format=csv'), {
      headers: { Authorization: `Bearer ${rawKey}` },
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
    assert.equal(response.headers.get('content-disposition'), 'attachment; filename="statement-rep-017-2026-04.csv"');
    const [header, ...rows] = parseCsv(await response.text());
    assert.deepEqual(header?.slice(0, 3), ['period_id', 'plan_key', 'plan_name']);
    const lines = statement.plans.flatMap((plan) => [...plan.lines, ...plan.adjustments]);
    assert.ok(lines.length >= 2);
    assert.deepEqual(
      rows.map((row) => row[6]),
      lines.map((line) => line.earning_id),
    );
    for (const status of ['projected', 'pending', 'approved', 'paid'] as const) {
      const sum = rows.filter((row) => row[7] === status).reduce((total, row) => total + Number(row[11]), 0);
      assert.equal(sum, statement.totals[`${status}_cents`], status);
    }
    const pending = rows.filter((row) => row[7] === 'pending');
    for (const row of pending) assert.equal(Number(row[12]) * 100, Number(row[11]));
    // A deal id that a spreadsheet would run as a formula is defused.
    assert.ok(rows.some((row) => row[8] === `'=HYPERLINK("x")`));
    assert.ok(rows.every((row) => !row.some((cell) => cell.startsWith('='))));
  });

  test('Accept: text/csv answers the file; JSON stays the default; errors stay JSON', async ({
    server,
    org,
    client,
    rawKey,
  }) => {
    const rep = await wonDeals(org.id, client);
    const auth = { Authorization: `Bearer ${rawKey}` };
    const byAccept = await fetch(statementUrl(server, rep.id, '2026-04'), { headers: { ...auth, Accept: 'text/csv' } });
    assert.match(byAccept.headers.get('content-type') ?? '', /^text\/csv/);
    const plain = await fetch(statementUrl(server, rep.id, '2026-04'), { headers: auth });
    assert.match(plain.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(plain.headers.get('content-disposition'), null);
    assert.deepEqual(await plain.json(), await client.statements.get(rep.id, '2026-04'));
    const formatWins = await fetch(statementUrl(server, rep.id, '2026-04', '?format=json'), {
      headers: { ...auth, Accept: 'text/csv' },
    });
    assert.match(formatWins.headers.get('content-type') ?? '', /^application\/json/);

    const unknown = await fetch(statementUrl(server, 'user_01knvyqwr3fmtr77g6vdncr588', '2026-04', '?format=csv'), {
      headers: auth,
    });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { error: string }).error, 'not_found');
    const badFormat = await fetch(statementUrl(server, rep.id, '2026-04', '?format=xlsx'), { headers: auth });
    assert.equal(badFormat.status, 400);
    assert.match(((await badFormat.json()) as { reason: string }).reason, /format/);
  });

  test('the SDK reads the CSV', async ({ org, client }) => {
    const rep = await wonDeals(org.id, client);
    const csv = await client.statements.csv(rep.id, '2026-04');
    assert.ok(csv.startsWith('period_id,plan_key,'));
  });

  test('format=pdf (or Accept: application/pdf) answers a document that holds every line and the totals', async ({
    server,
    org,
    client,
    rawKey,
  }) => {
    const rep = await wonDeals(org.id, client);
    const statement = await client.statements.get(rep.id, '2026-04');
    const byAccept = await fetch(statementUrl(server, rep.id, '2026-04'), {
      headers: { Authorization: `Bearer ${rawKey}`, Accept: 'application/pdf' },
    });
    assert.equal(byAccept.status, 200);
    assert.equal(byAccept.headers.get('content-type'), 'application/pdf');
    assert.equal(byAccept.headers.get('content-disposition'), 'attachment; filename="statement-rep-017-2026-04.pdf"');
    const { text } = await pdfText(await client.statements.pdf(rep.id, '2026-04'));
    assert.match(text, /Statement 2026-04/);
    const plan = statement.plans[0];
    assert.ok(plan);
    assert.ok(text.includes(`Pending ${formatMinorUnits(BigInt(plan.totals.pending_cents), 'USD')}`), text);
    assert.ok(text.includes(`Payable ${formatMinorUnits(BigInt(statement.payable_cents), 'USD')}`), text);
    for (const line of plan.lines) assert.ok(text.includes(formatMinorUnits(BigInt(line.amount_cents), 'USD')));
  });
});

/** Reads server-sent events from a fetch body until `until` says stop. */
async function readEvents(
  response: Response,
  until: (events: Array<{ event: string; id?: string; data: Record<string, unknown> }>) => boolean,
) {
  const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  const events: Array<{ event: string; id?: string; data: Record<string, unknown> }> = [];
  let buffer = '';
  while (!until(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((line) => !line.startsWith(':') && line.includes(': '))
          .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
      );
      if (fields.event && fields.data) {
        events.push({ event: fields.event, id: fields.id, data: JSON.parse(fields.data) });
      }
      end = buffer.indexOf('\n\n');
    }
  }
  await reader.cancel();
  return events;
}

describe('GET /v1/events/stream', () => {
  test('announces the rows a deal event writes, once the stream is ready; resumes from Last-Event-ID', async ({
    server,
    org,
    client,
    rawKey,
  }) => {
    await applyPlan(testDatabase(), org.id, planDocument());
    const controller = new AbortController();
    const response = await fetch(`${server.url}/v1/events/stream`, {
      headers: { Authorization: `Bearer ${rawKey}` },
      signal: controller.signal,
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.ok(response.headers.get('x-ratelimit-limit'));
    let sent = false;
    const events = await readEvents(response, (seen) => {
      if (!sent && seen.some((event) => event.event === 'ready')) {
        sent = true;
        void client.deals.ingestEvent({
          external_id: 'opp-live',
          state: state(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
        });
      }
      return seen.some((event) => event.event === 'earnings.changed');
    });
    controller.abort();
    const change = events.find((event) => event.event === 'earnings.changed');
    assert.ok(change);
    const rep = await client.users.findByExternalId('rep-017');
    const earnings = await client.earnings.listPage({ user_id: rep?.id });
    const deal = (await client.deals.listPage({ external_id: 'opp-live' })).deals[0];
    assert.deepEqual(change.data, {
      type: 'earnings.changed',
      user_id: rep?.id,
      user_external_id: 'rep-017',
      period_id: '2026-04',
      deal_id: deal?.id,
      earning_ids: earnings.earnings.filter((row) => row.deal_id === deal?.id).map((row) => row.id),
    });

    // Resuming from before the change announces it again (a notice; the reader reads the rows).
    const resumed = await fetch(`${server.url}/v1/events/stream`, {
      headers: { Authorization: `Bearer ${rawKey}`, 'Last-Event-ID': String(Number(change.id) - 1) },
    });
    const again = await readEvents(resumed, (seen) => seen.some((event) => event.event === 'earnings.changed'));
    assert.deepEqual(again.find((event) => event.event === 'earnings.changed')?.data, change.data);
  });

  test('another org’s rows are not announced; a key without earnings:read is 403', async ({
    server,
    client,
    org,
    rawKey,
    newOrg,
  }) => {
    await applyPlan(testDatabase(), org.id, planDocument());
    const other = await newOrg();
    await applyPlan(testDatabase(), other.org.id, planDocument());
    const response = await fetch(`${server.url}/v1/events/stream`, { headers: { Authorization: `Bearer ${rawKey}` } });
    let sent = false;
    const events = await readEvents(response, (seen) => {
      if (!sent && seen.some((event) => event.event === 'ready')) {
        sent = true;
        void other.client.deals
          .ingestEvent({
            external_id: 'opp-other',
            state: state(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
          })
          .then(() =>
            client.deals.ingestEvent({
              external_id: 'opp-mine',
              state: state(1_000_000, 'closed_won', '2026-04-11', { region: 'NA' }),
            }),
          );
      }
      return seen.some((event) => event.event === 'earnings.changed');
    });
    const changes = events.filter((event) => event.event === 'earnings.changed');
    const mine = (await client.deals.listPage({ external_id: 'opp-mine' })).deals[0];
    assert.deepEqual(
      changes.map((event) => event.data.deal_id),
      [mine?.id],
    );

    const narrow = await newOrg({ scopes: ['deals:read'] });
    const refused = await fetch(`${server.url}/v1/events/stream`, {
      headers: { Authorization: `Bearer ${narrow.rawKey}` },
    });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { reason: string }).reason, 'missing scope: earnings:read');
  });
});

describe('GET /v1/events/stream with a rep token', () => {
  test('announces the rows of the rep and their reports, never a peer’s', async ({ db, server }) => {
    const world = await repWorld(db, server);
    const { minted } = await repClient(server, world, world.a);
    const response = await fetch(`${server.url}/v1/events/stream`, {
      headers: { Authorization: `Bearer ${minted.token}` },
    });
    assert.equal(response.status, 200);
    let sent = false;
    const event = (rep: string, amount: number) =>
      world.client.deals.ingestEvent({
        external_id: `stream-${rep}`,
        state: { amount_cents: amount, stage: 'closed_won', close_date: '2026-05-10', owner_external_id: rep },
      });
    const events = await readEvents(response, (seen) => {
      if (!sent && seen.some((item) => item.event === 'ready')) {
        sent = true;
        void event('rep-b', 1_000_000)
          .then(() => event('rep-c', 2_000_000))
          .then(() => event('rep-a', 3_000_000));
      }
      return seen.some((item) => item.data.user_id === world.a.userId);
    });
    const reps = events.filter((item) => item.event === 'earnings.changed').map((item) => item.data.user_external_id);
    assert.ok(reps.includes('rep-a'));
    assert.ok(!reps.includes('rep-b'), JSON.stringify(reps));
    // The report's row was written before the rep's: it came first or in the same read.
    assert.ok(reps.includes('rep-c'), JSON.stringify(reps));
  });
});
