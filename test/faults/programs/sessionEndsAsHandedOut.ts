import { once } from 'node:events';
import net from 'node:net';
import { createPrismaClient } from '../../../src/db/prisma.ts';
import { createSqlPool, inTransaction } from '../../../src/repositories/transaction.ts';

// A PostgreSQL session that the server ends at the very moment the pool hands it out: a proxy in front of the
// real database relays the session's start-up and appends, to the same network write as the server's first
// ReadyForQuery, the FATAL 57P01 that `pg_terminate_backend` (or a fast shutdown) sends, then closes. The client
// sees both in one read. Run as a program of its own, so that an 'error' event nobody listens to ends this
// process (exit code 1), as it would end the server. Prints what each client saw as JSON on stdout.

const FATAL_57P01 = errorResponse([
  ['S', 'FATAL'],
  ['V', 'FATAL'],
  ['C', '57P01'],
  ['M', 'terminating connection due to administrator command'],
]);

function errorResponse(fields: Array<[string, string]>): Buffer {
  const body = Buffer.concat([
    ...fields.map(([code, text]) => Buffer.from(`${code}${text}\0`, 'utf8')),
    Buffer.from([0]),
  ]);
  const header = Buffer.alloc(5);
  header.write('E', 0, 'ascii');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** Relays to the database; ends each session right after its first ReadyForQuery ('Z'). */
async function startProxy(target: URL): Promise<net.Server> {
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream);
    // Messages are relayed as they come; the one network write that carries the first ReadyForQuery also
    // carries the FATAL, and ends the session.
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      let offset = 0;
      while (pending.length - offset >= 5) {
        const length = pending.readInt32BE(offset + 1);
        if (pending.length - offset < 1 + length) break;
        const type = String.fromCharCode(pending[offset] as number);
        offset += 1 + length;
        if (type === 'Z') {
          client.end(Buffer.concat([pending.subarray(0, offset), FATAL_57P01]));
          upstream.destroy();
          return;
        }
      }
      client.write(pending.subarray(0, offset));
      pending = pending.subarray(offset);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

async function outcome(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
    return 'succeeded';
  } catch (error) {
    return `failed: ${(error as { code?: string }).code ?? (error as Error).message}`;
  }
}

const database = new URL(process.env.DATABASE_URL as string);
const proxy = await startProxy(database);
const viaProxy = new URL(database);
viaProxy.hostname = '127.0.0.1';
viaProxy.port = String((proxy.address() as net.AddressInfo).port);

const pool = createSqlPool(viaProxy.toString(), 2, () => {});
const prisma = createPrismaClient(viaProxy.toString(), 2);
const results = {
  sqlTransaction: await outcome(() => inTransaction(pool, (tx) => tx.query({ text: 'SELECT 1', values: [] }))),
  prismaQuery: await outcome(() => prisma.$queryRaw`SELECT 1`),
  prismaTransaction: await outcome(() => prisma.$transaction(async (client) => client.$queryRaw`SELECT 1`)),
};
// Give any late 'error' event the chance to surface before the verdict.
await new Promise((resolve) => setTimeout(resolve, 200));
await pool.end();
await prisma.$disconnect();
proxy.close();
process.stdout.write(`${JSON.stringify(results)}\n`);
