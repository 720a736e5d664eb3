import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createPrismaClient } from '../src/db/prisma.ts';
import * as orgs from '../src/repositories/orgs.ts';
import { createSqlPool, databaseStatements } from '../src/repositories/transaction.ts';
import { dealEvents } from './events.ts';
import { createFloorTables } from './floor.ts';
import { noPlanChanges } from './listeners.ts';
import { benchServices } from './services.ts';

// `npm run bench:instructions`: the instructions the server process executes per request, counted by valgrind's
// callgrind. Unlike requests/s or even CPU time, an instruction count does not depend on what else the machine
// runs, so it compares two versions of the request path on a busy machine. The server runs under callgrind with
// instrumentation off; each scenario warms up (BENCH_INSTRUCTION_WARMUP requests, default 4,000: after a few
// hundred the optimising compiler is still at work in the window), then counts BENCH_INSTRUCTION_REQUESTS
// (default 2,000) requests on 4 connections. The server's own work only: PostgreSQL's
// share is what pg_stat_statements reports (`BENCH_PROFILE=1 npm run bench`). The floors (bench/bare-server.ts)
// are counted the same way, so each row has its ratio. BENCH_ONLY=auth|ingest|earnings counts one scenario (and
// its floor).

const execFileAsync = promisify(execFile);
const warmup = Number(process.env.BENCH_INSTRUCTION_WARMUP ?? 4000);
const counted = Number(process.env.BENCH_INSTRUCTION_REQUESTS ?? 2000);
const only = process.env.BENCH_ONLY;

const dataDir = await mkdtemp(join(tmpdir(), 'quotient-instructions-'));
await chmod(dataDir, 0o755);
const database = await openEmbeddedDatabase(dataDir);
const servers: ChildProcess[] = [];
try {
  await applyMigrations(database.url);
  const db = createPrismaClient(database.url, 2);
  // Set-up runs on the Prisma client only; the pool stays unconnected.
  const setupPool = createSqlPool(database.url, 1, () => {});
  const { admin: setup } = benchServices(db, setupPool);
  const keyFor = async (orgId: string, name: string) =>
    (
      await setup.keys.create({
        orgId,
        name,
        scopes: 'deals:read,deals:write,earnings:read,plans:read',
        rateLimit: '100000',
      })
    ).rawKey;
  const org = await orgs.create(databaseStatements(db), 'Instructions org');
  const planOrg = await orgs.create(databaseStatements(db), 'Instructions org with a plan');
  await setup.planAdmin.apply(
    {
      orgId: planOrg.id,
      text: await readFile(new URL('../examples/plans/core-ae.yaml', import.meta.url), 'utf8'),
    },
    noPlanChanges,
  );
  const authKey = await keyFor(org.id, 'auth');
  const ingestKey = await keyFor(org.id, 'ingest');
  const planKey = await keyFor(planOrg.id, 'earnings');
  await setupPool.end();
  await db.$disconnect();
  const admin = new pg.Pool({ connectionString: database.url, max: 1 });
  await createFloorTables(admin, authKey);
  await admin.end();

  const quotient = await startUnderCallgrind(database.url, ['src/cli/main.ts', 'serve', '--port', '0', '--json']);
  servers.push(quotient.child);
  const floor = await startUnderCallgrind(database.url, ['bench/bare-server.ts']);
  servers.push(floor.child);
  const json = { 'content-type': 'application/json' };
  process.stdout.write(
    `Instructions per request of the server process (callgrind), ${counted} requests after ${warmup} of warm-up, 4 connections\n`,
  );
  const scenarios = [
    { only: 'auth', name: 'GET /v1/ (auth, rate limit, audit)', server: quotient, path: '/v1/', key: authKey },
    { only: 'auth', name: 'floor GET /v1/ (one indexed select)', server: floor, path: '/v1/', key: authKey },
    {
      only: 'ingest',
      name: 'POST /v1/deals/events, no plan',
      server: quotient,
      path: '/v1/deals/events',
      key: ingestKey,
      body: dealEvents('i'),
    },
    {
      only: 'ingest',
      name: 'floor POST /v1/deals/events (3 inserts)',
      server: floor,
      path: '/v1/deals/events',
      key: ingestKey,
      body: dealEvents('f'),
    },
    {
      only: 'earnings',
      name: 'POST /v1/deals/events, four-chip plan',
      server: quotient,
      path: '/v1/deals/events',
      key: planKey,
      body: dealEvents('p'),
    },
  ].filter((scenario) => only === undefined || scenario.only === only);
  for (const scenario of scenarios) {
    const pid = scenario.server.child.pid as number;
    const drive = (amount: number) =>
      autocannon({
        url: `${scenario.server.url}${scenario.path}`,
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
    const instructions = await dumpTotals(pid);
    const requests = result.requests.total;
    const perRequest = (count: number) =>
      Math.round(count / requests)
        .toLocaleString('en-US')
        .padStart(11);
    process.stdout.write(
      `  ${scenario.name.padEnd(41)} ${perRequest(instructions.main)} main thread ${perRequest(instructions.all)} all threads (${requests} requests, ${result.non2xx} non-2xx)\n`,
    );
  }
} finally {
  for (const server of servers) {
    server.kill('SIGTERM');
    if (server.exitCode === null) await new Promise((done) => server.once('exit', done));
  }
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}

function callgrindControl(args: string[]) {
  return execFileAsync('callgrind_control', args);
}

/**
 * Dumps the counters so far (one file per thread, `--separate-threads=yes`) and returns the executed instructions
 * (Ir) of the main thread, the one that runs JavaScript, and of all threads: V8's helper threads (concurrent
 * marking and sweeping, optimising compilation) vary from run to run with when a collection or a compilation
 * happens to fall in the window, so the main thread's count is the steadier measure.
 */
async function dumpTotals(pid: number): Promise<{ main: number; all: number }> {
  await callgrindControl(['--dump=measured', String(pid)]);
  const prefix = `callgrind.out.${pid}.`;
  const dumps = (await readdir(dataDir)).filter((name) => name.startsWith(prefix));
  // callgrind.out.<pid>.<dump number>-<thread number>: the latest dump's files.
  const latest = Math.max(...dumps.map((name) => Number.parseInt(name.slice(prefix.length), 10)));
  let main = 0;
  let all = 0;
  for (const name of dumps) {
    const [dump, thread] = name.slice(prefix.length).split('-').map(Number);
    if (dump !== latest) continue;
    const text = await readFile(join(dataDir, name), 'utf8');
    const total = /^totals:\s+(\d+)/m.exec(text)?.[1];
    if (!total) throw new Error(`no totals in the callgrind dump ${name}`);
    all += Number(total);
    if (thread === 1) main += Number(total);
  }
  return { main, all };
}

/** A server (`node <args>`, printing `{"url": …}` once listening) under callgrind with instrumentation off. */
function startUnderCallgrind(databaseUrl: string, args: string[]): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((done, fail) => {
    const child = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        '--separate-threads=yes',
        '--smc-check=all-non-file',
        `--callgrind-out-file=${join(dataDir, 'callgrind.out.%p')}`,
        process.execPath,
        ...args,
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
