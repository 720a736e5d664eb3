import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, test } from 'vitest';
import { openEmbeddedDatabase } from '../../src/db/embedded.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { dealEvent } from '../factories/deals.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import {
  allGone,
  groupAndSession,
  isAlive,
  leaseHolders,
  postmasterPid,
  processTree,
  readinessOf,
  type Spawned,
  spawnQuotient,
  spawnWatched,
  throwawayDataDir,
  waitForOutput,
} from '../helpers/processes.ts';

// Stops that lose nothing, and an embedded database that no stop can pull away from a running process
// (docs/operations.md). Real `npm start`, `quotient serve|worker` and admin processes on throwaway data
// directories; every process is watched by the PID this test spawned, and its children.

// Real processes and clusters on a shared, loaded machine: generous timeouts (nothing here is timed).
const PROCESSES_MS = 600_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A data directory for this test, and a cleanup that stops whatever it left running (it should leave nothing). */
async function dataDir() {
  const data = await throwawayDataDir();
  const watched: number[] = [];
  cleanups.push(async () => {
    for (const pid of watched.filter(isAlive)) process.kill(pid, 'SIGKILL');
    const postmaster = postmasterPid(data.dir);
    if (postmaster) {
      process.kill(postmaster, 'SIGINT');
      await allGone([postmaster]);
    }
    await data.remove();
  });
  return { ...data, watch: (pids: number[]) => watched.push(...pids) };
}

// initdb and the migrations cost a few CPU seconds per cluster, more on a loaded machine: a test whose subject is
// not a cluster's creation starts from a copy of one cluster, initialised and migrated once for the file and
// stopped (a stopped cluster's directory copied whole is that cluster). The tests of a first start on an empty
// directory (the worker that creates it, `db status` before anything exists) keep a directory of their own.
let template: Promise<{ dir: string; remove(): Promise<void> }> | undefined;
afterAll(async () => {
  await (await template)?.remove();
});

function migratedTemplate() {
  template ??= (async () => {
    const data = await throwawayDataDir();
    const cluster = await openEmbeddedDatabase(data.dir);
    try {
      await applyMigrations(cluster.url);
    } finally {
      await cluster.stop();
    }
    return data;
  })();
  return template;
}

/** A data directory for this test holding a stopped, migrated cluster that no process has used yet. */
async function migratedDataDir() {
  const [data, { dir }] = await Promise.all([dataDir(), migratedTemplate()]);
  // -a keeps the owner (the `postgres` system user when we are root) and the modes PostgreSQL insists on.
  await promisify(execFile)('cp', ['-a', join(dir, 'pg'), join(data.dir, 'pg')]);
  return data;
}

async function serve(env: NodeJS.ProcessEnv): Promise<{ process: Spawned; url: string }> {
  const server = spawnQuotient(['serve', '--port', '0', '--json'], env);
  const [, url] = await waitForOutput(server, /"url": "([^"]+)"/);
  return { process: server, url: url as string };
}

async function worker(env: NodeJS.ProcessEnv): Promise<Spawned> {
  const started = spawnQuotient(['worker', '--json'], env);
  await waitForOutput(started, /"status": "running"/);
  return started;
}

async function stop(process: Spawned, signal: NodeJS.Signals) {
  process.child.kill(signal);
  const ended = await process.exited;
  assert.deepEqual(ended, { code: 0, signal: null }, `a graceful stop exits 0: ${process.stderr()}`);
}

async function orgCount(env: NodeJS.ProcessEnv): Promise<{ count: number; stderr: string }> {
  const listed = await runCli(['orgs', 'list', '--json'], env);
  assert.equal(listed.code, 0, listed.stderr);
  return { count: (onlyJson(listed) as { orgs: unknown[] }).orgs.length, stderr: listed.stderr };
}

async function orgAndKey(env: NodeJS.ProcessEnv) {
  const org = onlyJson(await runCli(['orgs', 'create', '--name', 'Stops', '--json'], env)) as { id: string };
  const created = await runCli(
    [
      'keys',
      'create',
      '--org',
      org.id,
      '--name',
      'load',
      '--scopes',
      'deals:write',
      '--rate-limit',
      '100000',
      '--json',
    ],
    env,
  );
  assert.equal(created.code, 0, created.stderr);
  return { orgId: org.id, rawKey: (onlyJson(created) as { key: string }).key };
}

describe('npm start stops without losing anything', () => {
  test(
    'Ctrl-C to the process group under load: answered requests are 2xx or a clean 503, each one audited',
    async () => {
      const data = await migratedDataDir();
      const { orgId, rawKey } = await orgAndKey(data.env);

      const npm = spawnWatched('npm', ['start'], data.env, true);
      const [, url] = await waitForOutput(npm, /serving on (http:\/\/\S+) /);
      const npmPid = npm.child.pid as number;
      const postmaster = postmasterPid(data.dir) as number;
      assert.ok(postmaster, 'the embedded cluster runs');
      // The terminal's Ctrl-C goes to npm's process group: the postmaster is in a session of its own.
      assert.notEqual(groupAndSession(postmaster).sid, groupAndSession(npmPid).sid);
      assert.notEqual(groupAndSession(postmaster).pgid, npmPid);
      const tree = processTree(npmPid);
      data.watch(tree);

      const answered: Array<{ status: number; body: string }> = [];
      let signalled = false;
      const load = async () => {
        for (;;) {
          let response: Response;
          try {
            response = await fetch(`${url}/v1/deals/events`, {
              method: 'POST',
              headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' },
              body: JSON.stringify(dealEvent()),
            });
          } catch (error) {
            // Refused or cut once the listener has closed: not answered, and the end of this client's run.
            if (signalled) return;
            throw error;
          }
          answered.push({ status: response.status, body: await response.text() });
        }
      };
      const clients = Array.from({ length: 8 }, load);
      while (answered.length < 40) await new Promise((done) => setTimeout(done, 20));
      signalled = true;
      process.kill(-npmPid, 'SIGINT');
      await Promise.all(clients);
      await npm.exited;
      await allGone([...tree, postmaster]);

      for (const { status, body } of answered) {
        if (status === 503) assert.equal((JSON.parse(body) as { error: string }).error, 'unavailable', body);
        else assert.equal(status, 201, body);
      }
      const log = npm.stderr();
      assert.match(log, /"msg":"quotient stopped"/);
      assert.doesNotMatch(log, /shutdown failed|could not write|audit queue full/);
      assert.deepEqual(leaseHolders(data.dir), []);

      const audit = await runCli(['audit', '--org', orgId, '--limit', '10000', '--json'], data.env);
      assert.equal(audit.code, 0, audit.stderr);
      const requests = (onlyJson(audit) as { entries: Array<{ actor_type: string }> }).entries.filter(
        (entry) => entry.actor_type === 'api_key',
      );
      assert.equal(requests.length, answered.length, 'one audit entry per answered request');
      const keys = onlyJson(await runCli(['keys', 'list', '--org', orgId, '--json'], data.env)) as {
        keys: Array<{ last_used_at: string | null }>;
      };
      assert.ok(keys.keys[0]?.last_used_at, 'last_used_at was written');
    },
    PROCESSES_MS,
  );

  test(
    'SIGTERM to the npm start process leaves no Quotient process behind',
    async () => {
      const data = await migratedDataDir();
      const npm = spawnWatched('npm', ['start'], data.env, true);
      const [, url] = await waitForOutput(npm, /serving on (http:\/\/\S+) /);
      assert.equal(await readinessOf(url as string), 200);
      const tree = processTree(npm.child.pid as number);
      assert.ok(tree.length >= 2, 'npm and the server');
      const postmaster = postmasterPid(data.dir) as number;
      data.watch(tree);

      process.kill(npm.child.pid as number, 'SIGTERM');
      await npm.exited;
      await allGone([...tree, postmaster]);
      assert.deepEqual(leaseHolders(data.dir), []);
      assert.match(npm.stderr(), /"signal":"SIGTERM","msg":"shutting down"/);
    },
    PROCESSES_MS,
  );
});

describe('npx quotient serve|worker stop with their launcher', () => {
  test.each(['serve', 'worker'])(
    'SIGTERM to `npx quotient %s` (which runs it behind a shell) leaves no Quotient process behind',
    async (command) => {
      const data = await migratedDataDir();
      const npx = spawnWatched('npx', ['quotient', command, '--json'], data.env, true);
      await waitForOutput(npx, command === 'serve' ? /"url": "([^"]+)"/ : /"status": "running"/);
      const tree = processTree(npx.child.pid as number);
      const postmaster = postmasterPid(data.dir) as number;
      const [holder] = leaseHolders(data.dir);
      assert.ok(holder !== undefined && tree.includes(holder), 'the Quotient process runs under npx');
      data.watch(tree);

      process.kill(npx.child.pid as number, 'SIGTERM');
      await npx.exited;
      await allGone([...tree, postmaster]);
      assert.deepEqual(leaseHolders(data.dir), []);
    },
    PROCESSES_MS,
  );
});

describe('the embedded database stays up while any Quotient process uses it', () => {
  test(
    'a worker that started the cluster stops; the server that joined keeps its database',
    async () => {
      const data = await dataDir();
      const first = await worker(data.env);
      assert.match(first.stderr(), /creating a NEW, EMPTY embedded PostgreSQL cluster/);
      const server = await serve(data.env);
      data.watch([first.child.pid as number, server.process.child.pid as number]);
      assert.match(server.process.stderr(), /joined: another Quotient process had started it/);
      const postmaster = postmasterPid(data.dir) as number;

      await stop(first, 'SIGINT');
      assert.ok(isAlive(postmaster), 'the cluster outlives the worker that started it');
      assert.equal(await readinessOf(server.url), 200);
      const created = await runCli(['orgs', 'create', '--name', 'After the worker', '--json'], data.env);
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stderr, new RegExp(`using the embedded PostgreSQL in ${data.dir} \\(joined`));
      assert.equal(await readinessOf(server.url), 200);

      await stop(server.process, 'SIGTERM');
      await allGone([postmaster]);
      assert.deepEqual(leaseHolders(data.dir), []);
    },
    PROCESSES_MS,
  );

  test(
    'a server that started the cluster stops; the worker keeps it, admin commands join, the last one out stops it',
    async () => {
      const data = await migratedDataDir();
      const server = await serve(data.env);
      const second = await worker(data.env);
      data.watch([second.child.pid as number, server.process.child.pid as number]);
      const postmaster = postmasterPid(data.dir) as number;
      assert.deepEqual(leaseHolders(data.dir), [server.process.child.pid as number, second.child.pid as number].sort());

      await stop(server.process, 'SIGTERM');
      const during = await orgCount(data.env);
      assert.match(during.stderr, /\(joined: another Quotient process had started it\)/);
      assert.ok(isAlive(postmaster), 'an admin command that joined does not stop the cluster');

      await stop(second, 'SIGTERM');
      await allGone([postmaster]);
      const after = await orgCount(data.env);
      assert.match(after.stderr, /\(started by this process\)/);
      assert.doesNotMatch(after.stderr, /NEW, EMPTY/, 'the existing cluster is started again, not a new one');
      assert.equal(postmasterPid(data.dir), null, 'the admin command stopped the cluster it started');
    },
    PROCESSES_MS,
  );

  test(
    'a process killed outright leaves a dead lease that does not keep the cluster up',
    async () => {
      const data = await migratedDataDir();
      const killed = await worker(data.env);
      const server = await serve(data.env);
      data.watch([killed.child.pid as number, server.process.child.pid as number]);
      const postmaster = postmasterPid(data.dir) as number;

      killed.child.kill('SIGKILL');
      await killed.exited;
      assert.equal(await readinessOf(server.url), 200);
      await stop(server.process, 'SIGINT');
      await allGone([postmaster]);
      assert.deepEqual(leaseHolders(data.dir), []);
    },
    PROCESSES_MS,
  );
});

describe('quotient db status', () => {
  async function status(env: NodeJS.ProcessEnv) {
    const result = await runCli(['db', 'status', '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    return onlyJson(result) as Record<string, unknown>;
  }

  test(
    'says whether the embedded cluster exists, runs and who holds it up, and never starts or creates it',
    async () => {
      const data = await dataDir();
      assert.deepEqual(await status(data.env), {
        database: 'embedded',
        data_dir: data.dir,
        initialised: false,
        running: false,
        port: null,
        holders: [],
      });
      assert.equal(postmasterPid(data.dir), null, 'asking created nothing');

      const server = await serve(data.env);
      const serverPid = server.process.child.pid as number;
      data.watch([serverPid]);
      const running = await status(data.env);
      assert.equal(running.running, true);
      assert.equal(running.initialised, true);
      // postmaster.pid's fourth line is the port the cluster listens on.
      const port = Number(readFileSync(join(data.dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[3]);
      assert.equal(running.port, port);
      assert.deepEqual(running.holders, [serverPid]);

      const postmaster = postmasterPid(data.dir) as number;
      await stop(server.process, 'SIGTERM');
      await allGone([postmaster]);
      assert.deepEqual(await status(data.env), {
        database: 'embedded',
        data_dir: data.dir,
        initialised: true,
        running: false,
        port: null,
        holders: [],
      });
    },
    PROCESSES_MS,
  );

  test('with DATABASE_URL, names the server and whether it answers', async () => {
    const reachable = await status({ ...process.env });
    assert.equal(reachable.database, 'url');
    assert.equal(reachable.reachable, true);
    assert.doesNotMatch(String(reachable.url), /@|password/, 'no credentials in the output');
    const unreachable = await status({ ...process.env, DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' });
    assert.deepEqual(
      [unreachable.database, unreachable.url, unreachable.reachable],
      ['url', '127.0.0.1:1/none', false],
    );
  });
});
