import express from 'express';
import pg from 'pg';

// The floors the benchmark compares Quotient against: bare Express routes with no validation, auth or ORM.
// GET /v1/ answers a constant; POST /v1/deals/events does three inserts in one transaction with `pg`.

const pool = process.env.DATABASE_URL
  ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 })
  : undefined;
const app = express();
app.use(express.json({ limit: '1mb' }));
app.get('/v1/', (_req, res) => {
  res.json({ org: { id: 'org_bare', name: 'bare' }, key: { id: 'key_bare', name: 'bare' } });
});
let sequence = 0;
app.post('/v1/deals/events', async (req, res) => {
  if (!pool) throw new Error('DATABASE_URL is required for the ingestion floor');
  const id = `${process.pid}-${++sequence}`;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('INSERT INTO bare_source_events (id, body) VALUES ($1, $2)', [id, req.body]);
    await client.query('INSERT INTO bare_domain_events (id, source_event_id) VALUES ($1, $1)', [id]);
    await client.query(
      `INSERT INTO bare_deals (external_id, state, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (external_id) DO UPDATE SET state = EXCLUDED.state, updated_at = now()`,
      [req.body.external_id, req.body.state],
    );
    await client.query('COMMIT');
    res.status(201).json({ source_event_id: id, domain_event_id: id, deal_id: req.body.external_id });
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
});
if (pool) {
  await pool.query(`
    CREATE TABLE IF NOT EXISTS bare_source_events (id text PRIMARY KEY, body jsonb NOT NULL, received_at timestamptz DEFAULT now());
    CREATE TABLE IF NOT EXISTS bare_domain_events (id text PRIMARY KEY, source_event_id text NOT NULL);
    CREATE TABLE IF NOT EXISTS bare_deals (external_id text PRIMARY KEY, state jsonb NOT NULL, updated_at timestamptz NOT NULL);`);
}
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` })}\n`,
  );
});
process.once('SIGTERM', () => {
  server.close();
  void pool?.end();
});
