import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { parse } from 'yaml';
import type { components } from '../../generated/openapi.ts';
import { DRAW_CHIP_KEY, DRAW_RECOVERY_CHIP_KEY, drawChipId } from '../../src/domain/earnings/draws.ts';
import { createAdmin } from '../factories/admins.ts';
import { ingest } from '../factories/deals.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { adminClient } from '../helpers/adminClient.ts';
import { cliJson, runCli } from '../helpers/cli.ts';
import { listAll } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { pdfText } from '../helpers/pdfText.ts';

// Plan documents (docs/plan-documents.md) through the API: the worked examples' figures are what the real pipeline
// pays (deal events in, earnings out, and POST /v1/estimates) for the same deals, for every example plan shipped in
// examples/plans; the HTML page and the PDF hold the plan's tier table; unknown plans and versions are 404.

type PlanDocument = components['schemas']['PlanDocument'];
type Example = PlanDocument['examples'][number];

const EXAMPLES = new URL('../../examples/plans/', import.meta.url);
const examplePlans = readdirSync(EXAMPLES)
  .filter((name) => /\.(ya?ml|json)$/.test(name))
  .sort();

function documentUrl(serverUrl: string, planId: string, query = ''): string {
  return `${serverUrl}/v1/plans/${planId}/document${query}`;
}

async function getDocument(serverUrl: string, rawKey: string, planId: string, query = ''): Promise<PlanDocument> {
  const response = await fetch(documentUrl(serverUrl, planId, query), {
    headers: { authorization: `Bearer ${rawKey}` },
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as PlanDocument;
}

/** The example's people as the test names them: each example has reps of its own, so examples do not mix. */
function person(example: Example, name: string): string {
  return `${name}-${example.key}`;
}

describe('worked examples equal what Quotient pays', () => {
  test('every example plan has examples to check', () => {
    assert.ok(examplePlans.length >= 2, `example plans: ${examplePlans.join(', ')}`);
  });

  for (const file of examplePlans) {
    test(`${file}: each example's lines are the earnings its deals get, and the estimate of its last deal`, async ({
      db,
      newOrg,
      server,
      services,
    }) => {
      const { org, rawKey, client } = await newOrg();
      const text = readFileSync(new URL(file, EXAMPLES), 'utf8');
      const definition = (file.endsWith('.json') ? JSON.parse(text) : parse(text)) as Record<string, unknown>;
      // The examples are about any rep on the plan; the test's reps are made up, so the plan applies to all.
      const applied = await applyPlan(db, org.id, { ...definition, assignees: 'all' });
      const document = await client.plans.document(applied.plan_id);
      assert.ok(document.examples.length > 0);

      const plan = await client.plans.get(applied.plan_id, { include: 'chips' });
      const chipKeys = new Map((plan.chips ?? []).map((chip) => [chip.id, chip.key]));
      chipKeys.set(drawChipId(applied.plan_id, DRAW_CHIP_KEY), DRAW_CHIP_KEY);
      chipKeys.set(drawChipId(applied.plan_id, DRAW_RECOVERY_CHIP_KEY), DRAW_RECOVERY_CHIP_KEY);

      const dealExternal = new Map<string, string>();
      for (const example of document.examples) {
        const rename = (name: string) => person(example, name);
        for (const report of example.reports) {
          await cliJson([
            'users',
            'set-manager',
            rename(report),
            rename('you'),
            '--org',
            org.id,
            '--from',
            `${example.period_id.slice(0, 4)}-01-01`,
          ]);
        }
        for (const [index, deal] of example.deals.entries()) {
          const state = {
            amount_cents: deal.amount_cents,
            stage: deal.stage,
            close_date: deal.close_date,
            owner_external_id: rename(deal.owner_external_id),
            custom: deal.custom,
          };
          const splits =
            deal.splits?.map((split) => ({ ...split, owner_external_id: rename(split.owner_external_id) })) ?? null;
          // The estimate of the last deal, before it is sent: each line it changes ends where the document says.
          if (index === example.deals.length - 1 && splits === null && deal.owner_external_id === 'you') {
            const estimate = await client.estimates.create({
              external_id: deal.external_id,
              state: {
                amount_cents: deal.amount_cents,
                owner_external_id: state.owner_external_id,
                custom: deal.custom,
              },
              close_date: deal.close_date,
            });
            assert.ok(estimate.lines.length > 0 || example.total_cents === 0);
            for (const line of estimate.lines) {
              const documented = example.lines.find(
                (entry) =>
                  entry.chip_key === chipKeys.get(line.rule_chip_id) &&
                  entry.deal_external_id === line.deal_external_id,
              );
              assert.equal(line.earned_after_cents, documented?.amount_cents ?? 0, `${file} ${example.key}: estimate`);
            }
          }
          const ids = await ingest(server, rawKey, { external_id: deal.external_id, state, splits });
          dealExternal.set(ids.deal_id, deal.external_id);
        }
      }
      // A period's draw is settled when it is locked: lock it, as an admin does at the end of the period. The
      // examples' periods may still be running (they are dated from today), which a lock takes only with a reason.
      for (const periodId of new Set(document.examples.map((example) => example.period_id))) {
        await services.admin.periods.lock(org.id, periodId, undefined, {
          overrideReason: 'the worked examples are checked against a locked period',
        });
      }
      const rows = await listAll(client);
      for (const example of document.examples) {
        const rename = (name: string) => person(example, name);
        const own = rows.filter(
          (row) =>
            row.user_external_id === rename('you') &&
            row.status !== 'superseded' &&
            row.status !== 'reversed' &&
            row.amount_cents !== 0,
        );
        const paid = new Map<string, number>();
        for (const row of own) {
          const key = `${chipKeys.get(row.rule_chip_id)} ${row.deal_id === null ? 'period' : dealExternal.get(row.deal_id)}`;
          paid.set(key, (paid.get(key) ?? 0) + row.amount_cents);
        }
        const documented = new Map(
          example.lines.map((line) => [`${line.chip_key} ${line.deal_external_id ?? 'period'}`, line.amount_cents]),
        );
        assert.deepEqual(
          Object.fromEntries([...paid].sort()),
          Object.fromEntries([...documented].sort()),
          `${file}, example ${example.key}`,
        );
        assert.equal(
          example.total_cents,
          example.lines.reduce((sum, line) => sum + line.amount_cents, 0),
        );
      }
    });
  }
});

const tieredPlan = () =>
  planDocument({
    name: 'Tiered Ωmega plan',
    chips: [
      {
        key: 'tiers',
        name: 'Tiered <commission>',
        kind: 'tiered_commission',
        mode: 'retroactive',
        tiers: [
          { up_to_cents: 5_000_000, rate_bps: 500 },
          { up_to_cents: 10_000_000, rate_bps: 800 },
          { up_to_cents: null, rate_bps: 1200 },
        ],
      },
    ],
  });

describe('GET /v1/plans/{id}/document', () => {
  test('as HTML: a self-contained page with the tier table, names escaped, no script allowed', async ({
    db,
    newOrg,
    server,
  }) => {
    const { org, rawKey } = await newOrg({ scopes: ['plans:read'] });
    const applied = await applyPlan(db, org.id, tieredPlan());
    const response = await fetch(documentUrl(server.url, applied.plan_id), {
      headers: { authorization: `Bearer ${rawKey}`, accept: 'text/html' },
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    assert.match(response.headers.get('content-security-policy') ?? '', /script-src 'none'/);
    const html = await response.text();
    assert.match(html, /<h1>Tiered Ωmega plan<\/h1>/);
    assert.match(html, /<h3>Tiered &lt;commission&gt;<\/h3>/);
    assert.doesNotMatch(html, /<commission>/);
    for (const row of [
      ['1', '0.00', '50,000.00', '5.00%'],
      ['2', '50,000.00', '100,000.00', '8.00%'],
      ['3', '100,000.00', 'and above', '12.00%'],
    ]) {
      const [band, from, to, rate] = row;
      assert.match(
        html,
        new RegExp(
          `<tr><td>${band}</td><td>${from}</td><td>${to}</td><td class="money">${rate?.replace('.', '\\.')}</td></tr>`,
        ),
      );
    }
  });

  test('as PDF (format=pdf): its text holds the tier table and the worked examples', async ({ db, newOrg, server }) => {
    const { org, rawKey } = await newOrg({ scopes: ['plans:read'] });
    const applied = await applyPlan(db, org.id, tieredPlan());
    const response = await fetch(documentUrl(server.url, applied.plan_id, '?format=pdf'), {
      headers: { authorization: `Bearer ${rawKey}` },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/pdf');
    assert.match(response.headers.get('content-disposition') ?? '', /^inline; filename="core-ae-\d+-v1\.pdf"$/);
    const read = await pdfText(new Uint8Array(await response.arrayBuffer()));
    assert.equal(read.lines[0], 'Tiered Ωmega plan');
    assert.ok(read.lines.includes('Band From Up to Rate'), read.text);
    assert.ok(read.lines.includes('1 0.00 50,000.00 5.00%'), read.text);
    assert.ok(read.lines.includes('2 50,000.00 100,000.00 8.00%'), read.text);
    assert.ok(read.lines.includes('3 100,000.00 and above 12.00%'), read.text);
    assert.ok(read.lines.includes('Worked examples'), read.text);
    const json = await getDocument(server.url, rawKey, applied.plan_id);
    const period = json.examples.find((example) => example.key === 'period');
    assert.ok(period);
    assert.ok(read.text.includes(`Total ${period.total}`), read.text);
  });

  test('Accept: application/pdf gives the PDF; JSON is the default; the SDK reads both', async ({
    db,
    newOrg,
    server,
  }) => {
    const { org, rawKey, client } = await newOrg({ scopes: ['plans:read'] });
    const applied = await applyPlan(db, org.id, tieredPlan());
    const viaSdk = await pdfText(await client.plans.documentPdf(applied.plan_id, { version_id: applied.version_id }));
    assert.ok(viaSdk.lines.includes('3 100,000.00 and above 12.00%'), viaSdk.text);
    assert.equal((await client.plans.document(applied.plan_id)).plan.version_id, applied.version_id);
    const pdf = await fetch(documentUrl(server.url, applied.plan_id), {
      headers: { authorization: `Bearer ${rawKey}`, accept: 'application/pdf' },
    });
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.equal(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
      '%PDF-',
    );
    const json = await fetch(documentUrl(server.url, applied.plan_id), {
      headers: { authorization: `Bearer ${rawKey}` },
    });
    assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await json.json()) as PlanDocument;
    assert.equal(body.plan.id, applied.plan_id);
    assert.equal(body.plan.version_id, applied.version_id);
    assert.deepEqual(
      body.chips[0]?.tiers?.map((tier) => tier.rate),
      ['5.00%', '8.00%', '12.00%'],
    );
  });

  test('version_id gives an earlier version’s document; a version of another plan is 404', async ({
    db,
    newOrg,
    server,
  }) => {
    const { org, rawKey } = await newOrg({ scopes: ['plans:read'] });
    const first = tieredPlan();
    const v1 = await applyPlan(db, org.id, first);
    const v2 = await applyPlan(db, org.id, { ...first, quota_cents: 20_000_000 });
    const other = await applyPlan(db, org.id, planDocument());
    const old = await getDocument(server.url, rawKey, v1.plan_id, `?version_id=${v1.version_id}`);
    assert.equal(old.plan.version_number, 1);
    assert.deepEqual(old.quota.amount, '100,000.00');
    const current = await getDocument(server.url, rawKey, v1.plan_id);
    assert.equal(current.plan.version_id, v2.version_id);
    assert.deepEqual(current.quota.amount, '200,000.00');
    const wrong = await fetch(documentUrl(server.url, v1.plan_id, `?version_id=${other.version_id}`), {
      headers: { authorization: `Bearer ${rawKey}` },
    });
    assert.equal(wrong.status, 404);
    assert.equal(((await wrong.json()) as { error: string }).error, 'not_found');
  });

  test('an unknown plan, or another org’s, is 404 not_found; an unknown format is 400', async ({
    db,
    newOrg,
    server,
  }) => {
    const owner = await newOrg();
    const other = await newOrg();
    const applied = await applyPlan(db, owner.org.id, tieredPlan());
    for (const id of [applied.plan_id, 'plan_01kjsj7s80fmtryrzh7j1q721q', 'nonsense']) {
      const response = await fetch(documentUrl(server.url, id, '?format=pdf'), {
        headers: { authorization: `Bearer ${other.rawKey}` },
      });
      assert.equal(response.status, 404, id);
      assert.deepEqual(await response.json(), { error: 'not_found', reason: `no plan ${id}` });
    }
    const bad = await fetch(documentUrl(server.url, applied.plan_id, '?format=docx'), {
      headers: { authorization: `Bearer ${owner.rawKey}` },
    });
    assert.equal(bad.status, 400);
    const body = (await bad.json()) as { error: string; reason: string };
    assert.equal(body.error, 'invalid_body');
    assert.match(body.reason, /format/);
  });

  test('a key without plans:read is 403', async ({ db, newOrg, server }) => {
    const { org, rawKey } = await newOrg({ scopes: ['deals:read'] });
    const applied = await applyPlan(db, org.id, tieredPlan());
    const response = await fetch(documentUrl(server.url, applied.plan_id), {
      headers: { authorization: `Bearer ${rawKey}` },
    });
    assert.equal(response.status, 403);
  });
});

describe('GET /admin/v1/plans/{id}/versions/{version_id}/document', () => {
  test('an admin reads any version’s document as JSON or PDF; another org’s plan is 404', async ({
    db,
    newOrg,
    server,
  }) => {
    const { org } = await newOrg();
    const stranger = await newOrg();
    const applied = await applyPlan(db, org.id, tieredPlan());
    const foreign = await applyPlan(db, stranger.org.id, tieredPlan());
    const account = await createAdmin(db, org.id, 'viewer');
    const admin = adminClient(server);
    await admin.signIn(account.email, account.password);
    const path = '/admin/v1/plans/{id}/versions/{version_id}/document' as const;

    const json = await admin.api.GET(path, {
      params: { path: { id: applied.plan_id, version_id: applied.version_id } },
    });
    assert.equal(json.response.status, 200);
    const model = json.data as PlanDocument;
    assert.equal(model.title, 'Tiered Ωmega plan');
    assert.equal(model.chips[0]?.tiers?.length, 3);

    const pdf = await admin.api.GET(path, {
      params: { path: { id: applied.plan_id, version_id: applied.version_id }, query: { format: 'pdf' } },
      parseAs: 'arrayBuffer',
    });
    assert.equal(pdf.response.headers.get('content-type'), 'application/pdf');
    const read = await pdfText(new Uint8Array(pdf.data as unknown as ArrayBuffer));
    assert.ok(read.lines.includes('2 50,000.00 100,000.00 8.00%'), read.text);

    const missing = await admin.api.GET(path, {
      params: { path: { id: foreign.plan_id, version_id: foreign.version_id } },
    });
    assert.equal(missing.response.status, 404);
  });
});

describe('quotient plans document', () => {
  test('writes the PDF (the default) or the HTML page of a version to a file; an unknown plan exits 2', async ({
    db,
    newOrg,
  }) => {
    const { org } = await newOrg();
    const applied = await applyPlan(db, org.id, tieredPlan());
    const directory = await mkdtemp(join(tmpdir(), 'quotient-document-'));
    const pdfPath = join(directory, 'plan.pdf');
    const written = await runCli(['plans', 'document', applied.plan_id, '--org', org.id, '--out', pdfPath]);
    assert.equal(written.code, 0, written.stderr);
    const read = await pdfText(new Uint8Array(await readFile(pdfPath)));
    assert.ok(read.lines.includes('1 0.00 50,000.00 5.00%'), read.text);

    const html = await runCli([
      'plans',
      'document',
      applied.plan_id,
      '--org',
      org.id,
      '--version',
      applied.version_id,
      '--format',
      'html',
    ]);
    assert.equal(html.code, 0, html.stderr);
    assert.match(html.stdout, /^<!doctype html>/);
    assert.match(html.stdout, /<td class="money">12\.00%<\/td>/);

    const unknown = await runCli(['plans', 'document', 'plan_01kjsj7s80fmtryrzh7j1q721q', '--org', org.id]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /has no plan plan_01kjsj7s80fmtryrzh7j1q721q/);
    const badFormat = await runCli(['plans', 'document', applied.plan_id, '--org', org.id, '--format', 'docx']);
    assert.equal(badFormat.code, 2);
    assert.match(badFormat.stderr, /--format: pdf, html or json, not docx/);
  });
});
