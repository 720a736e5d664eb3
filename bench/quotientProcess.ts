import type { ChildProcess } from 'node:child_process';
import { onlyJson, runCliProcess, spawnServe } from '../test/helpers/cli.ts';

// Quotient as a user runs it, for the benchmarks that seed through its own API (bench/period.ts, bench/scale.ts):
// the CLI for set-up, `quotient serve` for deal events, both with the tests' process helpers.

/** The environment of a Quotient process on this database, logging only warnings. */
function quotientEnv(databaseUrl: string): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' };
}

/** `quotient <args> --json` against the database, its one JSON document. */
export async function cli(databaseUrl: string, args: string[]): Promise<unknown> {
  const result = await runCliProcess([...args, '--json'], quotientEnv(databaseUrl));
  if (result.code !== 0) throw new Error(`quotient ${args.join(' ')} exited with ${result.code}: ${result.stderr}`);
  return onlyJson(result);
}

/** An org with a key that may write deals and read earnings, and product.md's four-chip plan active. */
export async function orgWithExamplePlan(databaseUrl: string, name: string): Promise<{ orgId: string; key: string }> {
  const org = (await cli(databaseUrl, ['orgs', 'create', '--name', name])) as { id: string };
  const created = (await cli(databaseUrl, [
    'keys',
    'create',
    '--org',
    org.id,
    '--name',
    name,
    '--scopes',
    'deals:write,earnings:read',
    '--rate-limit',
    '100000',
  ])) as { key: string };
  const plan = new URL('../examples/plans/core-ae.yaml', import.meta.url).pathname;
  await cli(databaseUrl, ['plans', 'apply', plan, '--org', org.id]);
  return { orgId: org.id, key: created.key };
}

/** `quotient serve` on a free port, once it prints where it listens. */
export function serve(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  return spawnServe(quotientEnv(databaseUrl));
}

/** Stops a server started by `serve` and waits for it to end. */
export async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

/** POSTs one deal event and fails the bench on anything but a 2xx. */
export function sender(url: string, key: string): (event: object) => Promise<void> {
  return async (event) => {
    const response = await fetch(`${url}/v1/deals/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(event),
    });
    if (!response.ok) throw new Error(`deal event answered ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
}
