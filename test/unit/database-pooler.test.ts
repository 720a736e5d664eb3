import assert from 'node:assert/strict';
import { test } from 'vitest';
import { serverTimeoutSettings, startupOptions, transactionSettings } from '../../src/db/availability.ts';
import { sessionUrl, throughTransactionPooler } from '../../src/db/pooler.ts';

const POOLED = 'postgresql://quotient@pgbouncer:6432/quotient?pgbouncer=true';
const DIRECT = 'postgresql://quotient@db:5432/quotient';

test('a connection string goes through a transaction pooler when it says pgbouncer=true, and only then', () => {
  assert.equal(throughTransactionPooler(POOLED), true);
  assert.equal(throughTransactionPooler(DIRECT), false);
  assert.equal(throughTransactionPooler(`${DIRECT}?pgbouncer=false`), false);
  assert.equal(throughTransactionPooler('not a url'), false);
});

test('session work goes to the direct URL; a pooled URL without one is refused, naming the variable', () => {
  assert.equal(sessionUrl(POOLED, DIRECT), DIRECT);
  assert.equal(sessionUrl(DIRECT, undefined), DIRECT);
  assert.throws(() => sessionUrl(POOLED, undefined), /QUOTIENT_DIRECT_DATABASE_URL/);
});

test('the same bounds as session options and as one transaction’s SET LOCAL', () => {
  const settings = serverTimeoutSettings({ connectMs: 5_000, statementMs: 6_000, lockMs: 5_000 });
  assert.equal(
    startupOptions(settings),
    '-c statement_timeout=6000 -c lock_timeout=5000 -c idle_in_transaction_session_timeout=60000',
  );
  assert.equal(
    transactionSettings(settings),
    "SET LOCAL statement_timeout = '6000'; SET LOCAL lock_timeout = '5000'; SET LOCAL idle_in_transaction_session_timeout = '60000'",
  );
});
