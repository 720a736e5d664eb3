import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createPrismaClient } from '../src/db/prisma.ts';
import { OrgRepository } from '../src/repositories/orgs.ts';
import { KeyAdmin } from '../src/services/keys.ts';

// `npm run bench`: Quotient against bare floors on the same machine, database and load generator, in one
// run, so the ratio means something. Servers run as child processes; autocannon drives them from here.
// BENCH_SECONDS (default 10) and BENCH_CONNECTIONS (default 32) tune the runs.

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

interface Result {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
}

const dataDir = await mkdtemp(join(tmpdir(), 'quotient-bench-'));
await chmod(dataDir, 0o755);
const database = await openEmbeddedDatabase(dataDir);
const children: ChildProcess[] = [];
try {
  await applyMigrations(database.url);
  const db = createPrismaClient(database.url, 2);
  const org = await new OrgRepository(db).create('Bench org');
  const { rawKey } = await new KeyAdmin(db).create({
    orgId: org.id,
    name: 'bench',
    scopes: 'deals:read,deals:write,earnings:read,plans:read',
    rateLimit: '100000',
  });
  await db.$disconnect();

  const quotient = await startChild(['src/cli/main.ts', 'serve', '--port', '0', '--json'], database.url);
  const bare = await startChild(['bench/bare-server.ts'], database.url);
  children.push(quotient.child, bare.child);

  process.stdout.write(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`,
  );
  process.stdout.write(`Load: autocannon, ${connections} connections, ${seconds} s per run after a 2 s warm-up\n\n`);

  const auth = { authorization: `Bearer ${rawKey}` };
  const authQuotient = await measure('Quotient GET /v1/ (auth, rate limit, audit)', quotient.url, {
    path: '/v1/',
    headers: auth,
  });
  const authBare = await measure('bare Express GET /v1/', bare.url, { path: '/v1/' });
  report([authQuotient, authBare], authQuotient, authBare);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(
    children.map((child) => new Promise((done) => (child.exitCode !== null ? done(null) : child.once('exit', done)))),
  );
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}

async function measure(
  name: string,
  url: string,
  request: { path: string; headers?: Record<string, string> },
): Promise<Result> {
  const options = { url: `${url}${request.path}`, connections, headers: request.headers ?? {} };
  await autocannon({ ...options, duration: 2 });
  const result = await autocannon({ ...options, duration: seconds });
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

function report(results: Result[], subject: Result, floor: Result): void {
  const width = Math.max(...results.map((result) => result.name.length));
  process.stdout.write(`${'scenario'.padEnd(width)}  requests/s   p50 ms   p99 ms   non-2xx\n`);
  for (const result of results) {
    process.stdout.write(
      `${result.name.padEnd(width)}  ${result.requestsPerSecond.toFixed(0).padStart(10)}  ${String(result.p50).padStart(7)}  ${String(result.p99).padStart(7)}  ${String(result.non2xx).padStart(8)}\n`,
    );
  }
  process.stdout.write(
    `ratio ${subject.name} / ${floor.name}: ${(subject.requestsPerSecond / floor.requestsPerSecond).toFixed(2)}\n\n`,
  );
}

function startChild(args: string[], databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      try {
        done({ child, url: (JSON.parse(stdout) as { url: string }).url });
      } catch {
        // not a whole document yet
      }
    });
    child.once('exit', (code) => fail(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}
