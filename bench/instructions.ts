import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createPrismaClient } from '../src/db/prisma.ts';
import { OrgRepository } from '../src/repositories/orgs.ts';
import { KeyAdmin } from '../src/services/keys.ts';
import { PlanAdmin } from '../src/services/plans.ts';
import { dealEvents } from './events.ts';
import { noPlanChanges } from './listeners.ts';

// `npm run bench:instructions`: the instructions the server process executes per request, counted by valgrind's
// callgrind. Unlike requests/s or even CPU time, an instruction count does not depend on what else the machine
// runs, so it compares two versions of the request path on a busy machine. The server runs under callgrind with
// instrumentation off; each scenario warms up (BENCH_INSTRUCTION_WARMUP requests, default 200), then counts
// BENCH_INSTRUCTION_REQUESTS (default 100) requests on 4 connections. The server's own work only: PostgreSQL's
// share is what pg_stat_statements reports (`BENCH_PROFILE=1 npm run bench`).

const execFileAsync = promisify(execFile);
const warmup = Number(process.env.BENCH_INSTRUCTION_WARMUP ?? 200);
const counted = Number(process.env.BENCH_INSTRUCTION_REQUESTS ?? 100);

const dataDir = await mkdtemp(join(tmpdir(), 'quotient-instructions-'));
await chmod(dataDir, 0o755);
const database = await openEmbeddedDatabase(dataDir);
let server: ChildProcess | undefined;
try {
  await applyMigrations(database.url);
  const db = createPrismaClient(database.url, 2);
  const keyFor = async (orgId: string, name: string) =>
    (
      await new KeyAdmin(db).create({
        orgId,
        name,
        scopes: 'deals:read,deals:write,earnings:read,plans:read',
        rateLimit: '100000',
      })
    ).rawKey;
  const org = await new OrgRepository(db).create('Instructions org');
  const planOrg = await new OrgRepository(db).create('Instructions org with a plan');
  await new PlanAdmin(db, noPlanChanges).apply({
    orgId: planOrg.id,
    text: await readFile(new URL('../examples/plans/core-ae.yaml', import.meta.url), 'utf8'),
  });
  const authKey = await keyFor(org.id, 'auth');
  const ingestKey = await keyFor(org.id, 'ingest');
  const planKey = await keyFor(planOrg.id, 'earnings');
  await db.$disconnect();

  const started = await startUnderCallgrind(database.url);
  server = started.child;
  const pid = started.child.pid as number;
  const json = { 'content-type': 'application/json' };
  process.stdout.write(
    `Instructions per request of the server process (callgrind), ${counted} requests after ${warmup} of warm-up, 4 connections\n`,
  );
  const scenarios = [
    { name: 'GET /v1/ (auth, rate limit, audit)', path: '/v1/', key: authKey },
    { name: 'POST /v1/deals/events, no plan', path: '/v1/deals/events', key: ingestKey, body: dealEvents('i') },
    { name: 'POST /v1/deals/events, four-chip plan', path: '/v1/deals/events', key: planKey, body: dealEvents('p') },
  ];
  for (const scenario of scenarios) {
    const drive = (amount: number) =>
      autocannon({
        url: `${started.url}${scenario.path}`,
        connections: 4,
        amount,
        timeout: 300,
        method: scenario.body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${scenario.key}`, ...(scenario.body ? json : {}) },
        ...(scenario.body
          ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: scenario.body() }) }] }
          : {}),
      });
    await drive(warmup);
    await callgrindControl(['--zero', String(pid)]);
    await callgrindControl(['--instr=on', String(pid)]);
    const result = await drive(counted);
    await callgrindControl(['--instr=off', String(pid)]);
    const instructions = await dumpTotal(pid);
    const requests = result.requests.total;
    process.stdout.write(
      `  ${scenario.name.padEnd(40)} ${Math.round(instructions / requests)
        .toLocaleString('en-US')
        .padStart(12)} instructions/request (${requests} requests, ${result.non2xx} non-2xx)\n`,
    );
  }
} finally {
  server?.kill('SIGTERM');
  if (server && server.exitCode === null) await new Promise((done) => server?.once('exit', done));
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}

function callgrindControl(args: string[]) {
  return execFileAsync('callgrind_control', args);
}

/** Dumps the counters so far and returns their total of executed instructions (Ir). */
async function dumpTotal(pid: number): Promise<number> {
  await callgrindControl(['--dump=measured', String(pid)]);
  const dumps = (await readdir(dataDir)).filter((name) => name.startsWith(`callgrind.out.${pid}.`)).sort();
  const text = await readFile(join(dataDir, dumps.at(-1) as string), 'utf8');
  const total = /^totals:\s+(\d+)/m.exec(text)?.[1];
  if (!total) throw new Error('no totals in the callgrind dump');
  return Number(total);
}

function startUnderCallgrind(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((done, fail) => {
    const child = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        '--smc-check=all-non-file',
        `--callgrind-out-file=${join(dataDir, 'callgrind.out.%p')}`,
        process.execPath,
        'src/cli/main.ts',
        'serve',
        '--port',
        '0',
        '--json',
      ],
      {
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          LOG_LEVEL: 'info',
          QUOTIENT_RATE_LIMIT_STORE: 'memory',
          QUOTIENT_WEBHOOK_WORKER: 'false',
        },
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      try {
        done({ child, url: (JSON.parse(stdout) as { url: string }).url });
      } catch {
        // not a whole document yet
      }
    });
    child.once('exit', (code) => fail(new Error(`the server under callgrind exited with ${code}`)));
  });
}
