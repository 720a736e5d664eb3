import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { test } from '../helpers/fixtures.ts';

// What `npm publish` would upload, proven to work: `npm pack` (which builds with tsc through `prepack`),
// `npm install` of the tarball into a new project, then a plain ESM script run by the machine's Node
// (not the project's, and without TypeScript) against a live server, and a type-check of the same use
// as a consumer compiles it, against the published declarations only.

const run = promisify(execFile);

// npm pack, npm install and tsc in a new project: minutes on a loaded 2-core machine, not the default minute.
const SLOW_CLI_TEST_MS = 180_000;
const SDK_DIR = fileURLToPath(new URL('../../sdk/', import.meta.url));
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

// The machine's own PATH: npm scripts put the project's node_modules/.bin (with its Node 24) first.
const machinePath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => !dir.includes(`node_modules${sep}.bin`))
  .join(delimiter);
const machineNode = machinePath
  .split(delimiter)
  .map((dir) => join(dir, process.platform === 'win32' ? 'node.exe' : 'node'))
  .find((candidate) => existsSync(candidate));
const machineEnv = { ...process.env, PATH: machinePath, npm_config_update_notifier: 'false' };

let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'quotient-sdk-package-'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const consumerScript = `
import { createClient, QuotientError, VERSION } from '@quotient/sdk';

const client = createClient({ baseUrl: process.env.QUOTIENT_URL, apiKey: process.env.QUOTIENT_API_KEY });
const context = await client.auth.get();
let refused;
try {
  await client.plans.listPage();
} catch (error) {
  refused = error instanceof QuotientError ? { status: error.status, error: error.error } : String(error);
}
console.log(JSON.stringify({ version: VERSION, orgId: context.org.id, refused, limit: client.lastRateLimit?.limit }));
`;

const consumerTypes = `
import { createClient, type Deal, QuotientError } from '@quotient/sdk';

const client = createClient({ baseUrl: 'https://api.quotient.example', apiKey: 'qtn_0' });
export async function orgId(): Promise<string> {
  const context = await client.auth.get();
  return context.org.id;
}
export async function wonDeals(): Promise<Deal[]> {
  const deals: Deal[] = [];
  for await (const deal of client.deals.list({ status: 'won' })) deals.push(deal);
  return deals;
}
export function code(error: unknown): string | undefined {
  return error instanceof QuotientError ? error.error : undefined;
}
// @ts-expect-error the published types still know the contract
client.deals.ingestEvent({ state: {} });
`;

test('the packed SDK installs into a new project and works there with the machine Node', {
  timeout: SLOW_CLI_TEST_MS,
}, async ({ server, newOrg, annotate }) => {
  assert.ok(machineNode, 'a node on the machine PATH');
  await annotate(`consumer runs on ${machineNode} ${(await run(machineNode, ['--version'])).stdout.trim()}`);
  const { org, rawKey } = await newOrg({ scopes: ['deals:read'] });

  await run('npm', ['pack', '--pack-destination', work], { cwd: SDK_DIR, env: machineEnv });
  const tarballs = (await readdir(work)).filter((name) => name.endsWith('.tgz'));
  assert.deepEqual(tarballs, ['quotient-sdk-0.1.0.tgz']);

  const consumer = join(work, 'consumer');
  await mkdir(consumer);
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', join(work, 'quotient-sdk-0.1.0.tgz'), '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: consumer,
    env: machineEnv,
  });

  await writeFile(join(consumer, 'main.mjs'), consumerScript);
  const { stdout } = await run(machineNode, ['main.mjs'], {
    cwd: consumer,
    env: { ...machineEnv, QUOTIENT_URL: server.url, QUOTIENT_API_KEY: rawKey },
  });
  assert.deepEqual(JSON.parse(stdout), {
    version: '0.1.0',
    orgId: org.id,
    refused: { status: 403, error: 'forbidden' },
    limit: 1000,
  });

  await writeFile(join(consumer, 'consumer.ts'), consumerTypes);
  await writeFile(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        lib: ['es2022', 'dom'],
        types: [],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
      },
      files: ['consumer.ts'],
    }),
  );
  await run(process.execPath, [TSC, '--project', consumer]).catch((error: { stdout?: string }) => {
    assert.fail(`the consumer project does not type-check:\n${error.stdout}`);
  });
});
