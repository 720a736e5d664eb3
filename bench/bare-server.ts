import { createHash } from 'node:crypto';
import express from 'express';
import pg from 'pg';
import { serveChild } from './serveChild.ts';

// The floors the benchmark compares Quotient against: bare Express routes with `pg`, no validation, no rate limit,
// no audit, no logging. GET /v1/ reads the bearer key's row with one indexed select of its digest (the least an
// authenticated read can do); POST /v1/deals/events does three inserts in one transaction. Set up by
// `npm run bench`, which inserts the key the floor looks up (`bare_keys`).

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = express();
app.use(express.json({ limit: '1mb' }));
app.get('/v1/', async (req, res) => {
  const token = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
  const digest = createHash('sha256').update(token).digest('hex');
  const { rows } = await pool.query({
    name: 'bare_key',
    text: 'SELECT k.id, k.name, o.id AS org_id, o.name AS org_name FROM bare_keys k JOIN bare_orgs o ON o.id = k.org_id WHERE k.digest = $1',
    values: [digest],
  });
  const key = rows[0];
  if (!key) {
    res.status(401).json({ error: 'invalid_key' });
    return;
  }
  res.json({ org: { id: key.org_id, name: key.org_name }, key: { id: key.id, name: key.name } });
});
let sequence = 0;
app.post('/v1/deals/events', async (req, res) => {
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
serveChild(app, () => pool.end());
