import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'vitest';

// The static half of the org-bound check (docs/scaling.md#statements-bound-to-one-org): every SQL text written in
// src/repositories that reads or writes an org-scoped table names org_id somewhere, or is listed below with its
// reason. Coarse on purpose: it cannot tell which table a condition binds (that is the plan-based check of
// test/integration/org-bound-statements.test.ts, exact but limited to what its workload runs), and it does not see
// Prisma's queries; it sees every raw statement, including those no workload reaches (sweeps, timers, CLI-only
// paths), so that a new one that forgets its org is noticed where it is written.

const ROOT = resolve(new URL('../../', import.meta.url).pathname);
const DIRECTORY = join(ROOT, 'src/repositories');

/** Tables that are not org-scoped, and names after FROM that are not tables. */
const NOT_ORG_SCOPED = new Set([
  'orgs',
  'admin_sign_in_failures',
  'credential_orgs',
  '_prisma_migrations',
  'pg_stat_activity',
]);

interface Listed {
  file: string;
  fragment: string;
  reason: string;
}

const LISTED: Listed[] = [
  {
    file: 'deals.ts',
    fragment: 'FROM deals WHERE ${where.join',
    reason: "the conditions are built: the first is the deal's org_id",
  },
  {
    file: 'earningsList.ts',
    fragment: '(SELECT e.* FROM earnings e WHERE ${[...where',
    reason: "the conditions are built: the first is the row's org_id",
  },
  {
    file: 'users.ts',
    fragment: 'FROM users WHERE ${where.join',
    reason: "the conditions are built: the first is the user's org_id",
  },
  {
    file: 'rateLimitCounters.ts',
    fragment: 'SELECT key_id, count FROM rate_limit_counters WHERE window_start',
    reason: "cross-org: the rate-limit store's counters of a window, every key's, whatever its org",
  },
  {
    file: 'rateLimitCounters.ts',
    fragment: 'DELETE FROM rate_limit_counters WHERE window_start <',
    reason: 'cross-org maintenance: the sweep of past windows',
  },
  {
    file: 'repTokens.ts',
    fragment: 'DELETE FROM rep_rate_limit_counters WHERE window_start <',
    reason: 'cross-org maintenance: the sweep of past windows',
  },
  {
    file: 'repSignInLinks.ts',
    fragment: 'DELETE FROM rep_sign_in_links WHERE expires_at <',
    reason: 'cross-org maintenance: the sweep of expired links',
  },
  {
    file: 'ssoSignInAttempts.ts',
    fragment: 'DELETE FROM sso_sign_in_attempts WHERE expires_at <',
    reason: 'cross-org maintenance: the sweep of expired sign-in attempts',
  },
  {
    file: 'webhookDeliveries.ts',
    fragment: "FROM webhook_deliveries WHERE status = 'pending'",
    reason: "cross-org: the metrics' gauge of pending deliveries",
  },
];

/** The SQL texts of a source file: template literals that read or write a table. */
function sqlTexts(source: string): string[] {
  return [...source.matchAll(/`([^`]*)`/g)]
    .map((match) => (match[1] ?? '').replace(/\s+/g, ' ').trim())
    .filter((text) => /\b(SELECT|UPDATE|DELETE|INSERT)\b/.test(text) && /\b(FROM|JOIN|UPDATE|INTO)\s+\w/.test(text));
}

/** The tables a text names after FROM, JOIN, UPDATE or INTO, less its CTEs and functions. */
function tablesOf(text: string): string[] {
  const ctes = new Set([...text.matchAll(/\b(\w+) AS (?:MATERIALIZED )?\(/g)].map((match) => match[1]));
  // After FROM or JOIN a name followed by a parenthesis is a function; after INTO, the column list follows.
  return [...text.matchAll(/\b(FROM|JOIN|UPDATE|INTO)\s+(?:LATERAL\s+)?([a-z_][a-z0-9_]*)(\s*\()?/g)]
    .filter((match) => (match[1] === 'INTO' || match[3] === undefined) && !ctes.has(match[2]))
    .map((match) => match[2] as string);
}

test('every SQL text of src/repositories on an org-scoped table names org_id, or is listed with its reason', () => {
  const unbound: string[] = [];
  const matched = new Set<Listed>();
  for (const file of readdirSync(DIRECTORY).filter((name) => name.endsWith('.ts'))) {
    for (const text of sqlTexts(readFileSync(join(DIRECTORY, file), 'utf8'))) {
      if (text.includes('org_id')) continue;
      const tables = tablesOf(text).filter((table) => !NOT_ORG_SCOPED.has(table));
      if (tables.length === 0) continue;
      const listed = LISTED.find((entry) => entry.file === file && text.includes(entry.fragment));
      if (listed) matched.add(listed);
      else unbound.push(`${file}: ${text.slice(0, 160)}`);
    }
  }
  assert.deepEqual(unbound, [], 'SQL on org-scoped tables without org_id');
  assert.deepEqual(
    LISTED.filter((entry) => !matched.has(entry)).map((entry) => `${entry.file}: ${entry.fragment}`),
    [],
    'listed texts no longer found (bound now, or gone): strike them off',
  );
});

test('the scan finds a statement that names no org, and not one that does', () => {
  assert.deepEqual(tablesOf('SELECT id FROM earnings e JOIN users u ON u.id = e.user_id'), ['earnings', 'users']);
  assert.deepEqual(tablesOf('WITH moved AS (UPDATE earnings SET x = 1 RETURNING *) SELECT * FROM moved'), ['earnings']);
  assert.deepEqual(tablesOf('SELECT * FROM unnest($1::text[]) AS n(id)'), []);
  assert.deepEqual(tablesOf('INSERT INTO deals (id, org_id) VALUES ($1, $2)'), ['deals']);
  assert.deepEqual(sqlTexts('const a = `SELECT 1`; const b = `DELETE FROM deals WHERE id = $1`;'), [
    'DELETE FROM deals WHERE id = $1',
  ]);
});
