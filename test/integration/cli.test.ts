import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'vitest';
import { exited, onlyJson, runCli, runCliProcess, spawnServe } from '../helpers/cli.ts';
import { readinessOf } from '../helpers/processes.ts';

// A cluster of its own (initdb), a server and several CLI processes: minutes on a loaded 2-core machine.
const SLOW_CLI_TEST_MS = 180_000;

// Each command in a process of its own (runCliProcess, not a CLI host of the file): bin/quotient.js as installed, and
// a command that left a connection or a timer open would not exit here.
describe('quotient CLI against DATABASE_URL', () => {
  test('orgs create --json prints exactly one JSON document with an org_ id', async () => {
    const result = await runCliProcess(['orgs', 'create', '--name', 'Acme', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const org = onlyJson(result) as { id: string; name: string };
    assert.match(org.id, /^org_[0-7][0-9a-hjkmnp-tv-z]{25}$/);
    assert.equal(org.name, 'Acme');
  });

  test('db distribute on plain PostgreSQL is refused: exit 2, invalid_state, the reason names the citus extension', async () => {
    const result = await runCli(['db', 'distribute', '--json']);
    assert.equal(result.code, 2, result.stderr);
    const refused = onlyJson(result) as { error: string; reason: string };
    assert.equal(refused.error, 'invalid_state');
    assert.match(refused.reason, /no citus extension/);
  });

  test('orgs list --json includes a created org', async () => {
    const created = onlyJson(await runCliProcess(['orgs', 'create', '--name', 'Listed', '--json'])) as { id: string };
    const result = await runCliProcess(['orgs', 'list', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const { orgs } = onlyJson(result) as { orgs: Array<{ id: string }> };
    assert.ok(orgs.some((org) => org.id === created.id));
  });

  test('an admin command says on stderr which database it uses, without the password', async () => {
    const url = new URL(process.env.DATABASE_URL as string);
    const result = await runCliProcess(['orgs', 'list', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const shown = `${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
    assert.match(
      result.stderr,
      new RegExp(`^quotient: using DATABASE_URL \\(${shown.replaceAll('.', '\\.')}\\)$`, 'm'),
    );
    if (url.password) assert.equal(result.stderr.includes(`:${url.password}@`), false, 'no password');
  });

  test('migrate --json reports that nothing is pending on a migrated database', async () => {
    const result = await runCliProcess(['migrate', '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(onlyJson(result), { applied: [] });
  });

  test('a refused command prints one JSON error document and exits 2', async () => {
    const result = await runCliProcess(['orgs', 'create', '--name', '  ', '--json']);
    assert.equal(result.code, 2);
    assert.deepEqual(onlyJson(result), { error: 'invalid_argument', reason: 'the org needs a non-empty --name' });
  });
});

describe('quotient CLI on the embedded database', () => {
  test('admin commands work while the server runs on the same data directory, and after it stops', {
    timeout: SLOW_CLI_TEST_MS,
  }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'quotient-cli-'));
    await chmod(dataDir, 0o755);
    const env: NodeJS.ProcessEnv = { ...process.env, QUOTIENT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    try {
      const { child, url } = await spawnServe(env);
      try {
        assert.equal(await readinessOf(url), 200);
        const created = await runCliProcess(['orgs', 'create', '--name', 'Beside the server', '--json'], env);
        assert.equal(created.code, 0, created.stderr);
        const org = onlyJson(created) as { id: string };
        const listed = onlyJson(await runCliProcess(['orgs', 'list', '--json'], env)) as {
          orgs: Array<{ id: string }>;
        };
        assert.deepEqual(
          listed.orgs.map((o) => o.id),
          [org.id],
        );
        assert.equal(await readinessOf(url), 200, 'the server still has its database');
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await exited(child), 0, 'a graceful shutdown exits 0');
      const afterStop = await runCliProcess(['orgs', 'list', '--json'], env);
      assert.equal(afterStop.code, 0, afterStop.stderr);
      assert.equal((onlyJson(afterStop) as { orgs: unknown[] }).orgs.length, 1);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
