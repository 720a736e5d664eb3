import pg from 'pg';

// Exit 0 when a PostgreSQL server answers at the URL given, 1 otherwise (used by .ci/run).
const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: node scripts/pg-reachable.ts postgresql://…\n');
  process.exit(2);
}
const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
try {
  await client.connect();
  await client.query('SELECT 1');
  await client.end();
  process.exit(0);
} catch {
  process.exit(1);
}
