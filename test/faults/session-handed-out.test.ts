import assert from 'node:assert/strict';
import { test } from 'vitest';
import { runProgram } from '../helpers/cli.ts';

// A session that PostgreSQL ends just as the pool hands it out (its FATAL in the same network read as its first
// ReadyForQuery) must fail the work that took it, never the process: the program behind this test ends with
// exit code 1 when an 'error' event of a `pg` client has no listener, as the server once did under
// `pg_terminate_backend` once in a few runs.

test('a session ended as the pool hands it out fails that transaction or query only, for pg and Prisma alike', async () => {
  const { code, stdout, stderr } = await runProgram('test/faults/programs/sessionEndsAsHandedOut.ts');
  assert.equal(code, 0, `the program ended with ${code}: ${stderr}`);
  const results = JSON.parse(stdout) as Record<string, string>;
  for (const [client, result] of Object.entries(results)) {
    assert.match(result, /^failed: /, `${client}: ${result}`);
  }
});
