import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { allGone, postmasterPid, spawnQuotient, throwawayDataDir, waitForOutput } from '../helpers/processes.ts';

// `quotient demo` on a fresh data directory, then the API with the key it printed, as a new user would.

const PROCESSES_MS = 600_000;

interface DemoJson {
  org: { id: string; name: string; reused: boolean };
  key: { id: string; key: string };
  plan: { id: string; version: number };
  periods: { paid: string; open: string };
  deal_events: { sent: number; replayed: number };
  earnings: Record<string, number>;
  next: { curl: string[]; sdk: string[] };
}

let data: Awaited<ReturnType<typeof throwawayDataDir>>;

beforeAll(async () => {
  data = await throwawayDataDir();
});

afterAll(async () => {
  const postmaster = postmasterPid(data.dir);
  if (postmaster) {
    process.kill(postmaster, 'SIGINT');
    await allGone([postmaster]);
  }
  await data.remove();
});

async function listEarnings(url: string, key: string) {
  const statuses: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const response = await fetch(`${url}/v1/earnings?limit=200${query}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(response.status, 200, await response.clone().text());
    const page = (await response.json()) as { earnings: Array<{ status: string }>; next_cursor: string | null };
    statuses.push(...page.earnings.map((earning) => earning.status));
    cursor = page.next_cursor;
  } while (cursor);
  return statuses;
}

describe('quotient demo', () => {
  test(
    'on a fresh data directory: one JSON document with the org and the key, whose earnings list shows paid, pending and projected rows; a second run reuses it all',
    async () => {
      const first = await runCli(['demo', '--json'], data.env);
      assert.equal(first.code, 0, first.stderr);
      const demo = onlyJson(first) as DemoJson;
      assert.match(demo.org.id, /^org_/);
      assert.match(demo.key.key, /^qtn_[0-9a-f]{64}$/);
      assert.equal(demo.org.reused, false);
      assert.equal(demo.deal_events.replayed, 0);
      assert.ok(demo.deal_events.sent >= 8);
      assert.ok(demo.next.curl.every((line) => line.includes(demo.key.key)));
      assert.ok(demo.next.sdk.some((line) => line.includes(demo.key.key)));

      const server = spawnQuotient(['serve', '--port', '0', '--json'], data.env);
      try {
        const [, url] = await waitForOutput(server, /"url": "([^"]+)"/);
        const statuses = await listEarnings(url as string, demo.key.key);
        const distinct = new Set(statuses);
        for (const status of ['paid', 'pending', 'projected'])
          assert.ok(distinct.has(status), `${status} in ${[...distinct]}`);
        assert.ok(distinct.size >= 3);
        // The API shows what the demo reported.
        const counted: Record<string, number> = {};
        for (const status of statuses) counted[status] = (counted[status] ?? 0) + 1;
        assert.deepEqual(counted, demo.earnings);

        // Again, while the server runs: the same org, the events replayed, nothing new earned; a new key.
        const second = await runCli(['demo', '--json'], data.env);
        assert.equal(second.code, 0, second.stderr);
        const again = onlyJson(second) as DemoJson;
        assert.equal(again.org.id, demo.org.id);
        assert.equal(again.org.reused, true);
        assert.notEqual(again.key.key, demo.key.key);
        assert.deepEqual(again.deal_events, { sent: 0, replayed: demo.deal_events.sent });
        assert.deepEqual(again.earnings, demo.earnings);
        assert.deepEqual(await listEarnings(url as string, again.key.key), statuses);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }

      const human = await runCli(['demo', '--org-name', 'Another demo'], data.env);
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /Created the org org_\w+ \(Another demo\)/);
      assert.match(human.stdout, /^ {2}qtn_[0-9a-f]{64}$/m);
      assert.match(human.stdout, /^ {2}curl -s .*\/v1\/earnings/m);
    },
    PROCESSES_MS,
  );
});
