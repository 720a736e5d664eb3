import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('webhook configuration', () => {
  test('by default: public https addresses only, a worker in serve, the product.md schedule, 15 s per attempt', () => {
    assert.deepEqual(loadConfig({}).webhooks, {
      allowPrivateAddresses: false,
      workerInServe: true,
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      timeoutMs: 15_000,
      pollIntervalMs: 500,
      concurrency: 10,
      workerOrgIds: null,
    });
  });

  test('each setting is read from its variable', () => {
    assert.deepEqual(
      loadConfig({
        QUOTIENT_WEBHOOKS_ALLOW_PRIVATE: 'true',
        QUOTIENT_WEBHOOK_WORKER: 'false',
        QUOTIENT_WEBHOOK_RETRY_SCHEDULE: '100ms,1s',
        QUOTIENT_WEBHOOK_TIMEOUT_SECONDS: '2',
        QUOTIENT_WEBHOOK_POLL_MS: '50',
        QUOTIENT_WEBHOOK_CONCURRENCY: '3',
        QUOTIENT_WEBHOOK_ORGS: 'org_01kjsj7s7zfmtryrzh7j1q721q, org_01kpnvmrz8f7z8pdg8ny07g73y',
      }).webhooks,
      {
        allowPrivateAddresses: true,
        workerInServe: false,
        retryScheduleMs: [100, 1_000],
        timeoutMs: 2_000,
        pollIntervalMs: 50,
        concurrency: 3,
        workerOrgIds: ['org_01kjsj7s7zfmtryrzh7j1q721q', 'org_01kpnvmrz8f7z8pdg8ny07g73y'],
      },
    );
  });

  test('a malformed value stops the process with the variable named', () => {
    assert.throws(
      () => loadConfig({ QUOTIENT_WEBHOOK_WORKER: 'yes' }),
      /QUOTIENT_WEBHOOK_WORKER must be true or false/,
    );
    assert.throws(
      () => loadConfig({ QUOTIENT_WEBHOOK_RETRY_SCHEDULE: '5s,soon' }),
      /QUOTIENT_WEBHOOK_RETRY_SCHEDULE must be comma-separated delays: "soon" is not a delay/,
    );
    assert.throws(() => loadConfig({ QUOTIENT_WEBHOOK_TIMEOUT_SECONDS: '0' }), /from 1 to 60/);
    assert.throws(
      () => loadConfig({ QUOTIENT_WEBHOOK_ORGS: 'org_01kjsj7s7zfmtryrzh7j1q721q,acme' }),
      /QUOTIENT_WEBHOOK_ORGS must be comma-separated org ids \(org_...\), got "acme"/,
    );
  });
});
