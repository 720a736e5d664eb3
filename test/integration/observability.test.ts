import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { afterAll, describe } from 'vitest';
import { createLogger } from '../../src/lib/logger.ts';
import type { RunningServer } from '../../src/main.ts';
import { prismaTransactor } from '../../src/repositories/transaction.ts';
import { WebhookWorker } from '../../src/webhooks/worker.ts';
import { createOrg } from '../factories/access.ts';
import { dealEvent, ingest } from '../factories/deals.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import { eventually } from '../helpers/clock.ts';
import { testDatabase } from '../helpers/database.ts';
import { expositionProblems } from '../helpers/expositionFormat.ts';
import { test } from '../helpers/fixtures.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.ts';

const receivers: WebhookReceiver[] = [];

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

/** A logger like the processes', writing its JSON lines into an array. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

async function scrape(server: RunningServer): Promise<string> {
  const response = await fetch(`${server.url}/metrics`);
  assert.equal(response.status, 200);
  return response.text();
}

/** The value of one sample, e.g. sample(text, 'quotient_ingestion_events_total{type="deal.created"}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Some of everything: a plan, deals that earn, and a webhook attempt that fails and is retried later. */
async function generateTraffic(server: RunningServer, orgId: string, rawKey: string) {
  await applyPlan(testDatabase(), orgId, planDocument());
  const deal = dealEvent({}, { stage: 'closed_won', custom: { region: 'EMEA' } });
  await ingest(server, rawKey, deal);
  await ingest(server, rawKey, { external_id: deal.external_id, state: { amount_cents: 7_000_000 } });
}

describe('observability', () => {
  test('a failed webhook attempt is logged at warn with endpoint, status and next retry, and counted', async ({
    services,
    db,
    server,
  }) => {
    const org = await createOrg(db);
    const receiver = await startReceiver(() => 503);
    receivers.push(receiver);
    const { endpoint } = await createEndpoint(db, org.id, receiver.url);
    await services.admin.webhooks.test(org.id, endpoint.id);
    const { logger, lines } = capturingLogger();
    const worker = new WebhookWorker(
      prismaTransactor(db),
      {
        allowPrivateAddresses: true,
        retryScheduleMs: [3_600_000],
        timeoutMs: 2_000,
        pollIntervalMs: 20,
        concurrency: 2,
      },
      logger,
      { orgIds: [org.id] },
    );
    worker.start();
    try {
      const failed = await eventually(async () =>
        lines.find((line) => line.msg === 'webhook attempt failed; retrying at next_attempt_at'),
      );
      assert.equal(failed.level, 40, 'warn');
      assert.equal(failed.endpoint_id, endpoint.id);
      assert.equal(failed.url, receiver.url);
      assert.equal(failed.status, 503);
      assert.equal(failed.outcome, 'retry_scheduled');
      const nextRetry = Date.parse(failed.next_attempt_at as string);
      assert.ok(nextRetry > Date.now() + 3_000_000, `the retry is an hour away: ${failed.next_attempt_at}`);
    } finally {
      await worker.stop();
    }
    const text = await scrape(server);
    assert.ok((sample(text, 'quotient_webhook_attempts_total{outcome="retry_scheduled"}') ?? 0) >= 1);
    assert.ok((sample(text, 'quotient_webhook_deliveries_pending') ?? 0) >= 1, 'the retried delivery is pending');
    assert.ok((sample(text, 'quotient_webhook_oldest_pending_delivery_age_seconds') ?? -1) >= 0);
  });

  test('ingestion events are counted by domain-event type, and earnings rows written by status', async ({
    server,
    org,
    rawKey,
  }) => {
    const before = await scrape(server);
    await generateTraffic(server, org.id, rawKey);
    const after = await scrape(server);
    const delta = (series: string) => (sample(after, series) ?? 0) - (sample(before, series) ?? 0);
    assert.equal(delta('quotient_ingestion_events_total{type="deal.created"}'), 1);
    assert.equal(delta('quotient_ingestion_events_total{type="deal.amount_changed"}'), 1);
    assert.ok(delta('quotient_earnings_rows_written_total{status="pending"}') >= 2, after);
  });

  test('/metrics follows the Prometheus naming rules', async ({ server, org, rawKey }) => {
    await generateTraffic(server, org.id, rawKey);
    const text = await scrape(server);
    const families = new Map<string, { type?: string; help?: string }>();
    for (const line of text.split('\n')) {
      const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
      if (meta) {
        const family = families.get(meta[2] as string) ?? {};
        if (meta[1] === 'TYPE') family.type = meta[3];
        else family.help = meta[3];
        families.set(meta[2] as string, family);
      }
    }
    assert.ok(families.size > 10);
    for (const [name, family] of families) {
      assert.match(name, /^quotient_[a-z][a-z0-9]*(_[a-z0-9]+)*$/, `${name}: snake_case with the quotient_ prefix`);
      assert.ok(family.help && family.help.length > 0, `${name} has help text`);
      assert.ok(['counter', 'gauge', 'histogram', 'summary'].includes(family.type ?? ''), `${name} has a type`);
      if (family.type === 'counter') assert.match(name, /_total$/, `counter ${name} ends in _total`);
      else assert.doesNotMatch(name, /_total$/, `${family.type} ${name} does not end in _total`);
      assert.doesNotMatch(name, /_(milliseconds|ms|kilobytes|megabytes|minutes|hours)(_|$)/, `${name} uses base units`);
    }
    for (const line of text.split('\n').filter((candidate) => candidate !== '' && !candidate.startsWith('#'))) {
      const series = /^([a-z_:][a-z0-9_:]*)(\{(.*)\})? (\S+)( \d+)?$/.exec(line);
      assert.ok(series, `a well-formed sample: ${line}`);
      const name = series[1] as string;
      const family = [name, name.replace(/_(bucket|sum|count)$/, '')].find((candidate) => families.has(candidate));
      assert.ok(family, `${name} belongs to a declared family`);
      for (const label of (series[3] ?? '').matchAll(/([^=,{}]+)="/g)) {
        assert.match(label[1] as string, /^[a-z][a-z0-9_]*$/, `label ${label[1]} of ${name} is snake_case`);
      }
    }
  });

  test('/metrics is a valid Prometheus text exposition', async ({ server, org, rawKey }) => {
    await generateTraffic(server, org.id, rawKey);
    const text = await scrape(server);
    assert.match(text, /^# TYPE \S+ histogram$/m, 'the check covers a histogram');
    assert.deepEqual(expositionProblems(text), []);
  });
});
