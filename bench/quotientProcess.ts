import { type ChildProcess, spawn } from 'node:child_process';

// Quotient as a user runs it, for the benchmarks that seed through its own API (bench/period.ts, bench/scale.ts):
// the CLI for set-up, `quotient serve` for deal events.

/** `quotient <args> --json` against the database, its one JSON document. */
export function cli(databaseUrl: string, args: string[]): Promise<unknown> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['src/cli/main.ts', ...args, '--json'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.once('exit', (code) =>
      code === 0 ? done(JSON.parse(stdout)) : fail(new Error(`quotient ${args.join(' ')} exited with ${code}`)),
    );
  });
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
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['src/cli/main.ts', 'serve', '--port', '0', '--json'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      try {
        done({ child, url: (JSON.parse(stdout) as { url: string }).url });
      } catch {
        // not a whole document yet
      }
    });
    child.once('exit', (code) => fail(new Error(`quotient serve exited with ${code}`)));
  });
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
