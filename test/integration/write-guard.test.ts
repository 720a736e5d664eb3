import assert from 'node:assert/strict';
import express, { type Express, type RequestHandler, type Response } from 'express';
import request from 'supertest';
import { describe } from 'vitest';
import { countingGate, MemoryWindowCounter } from '../../src/access/rateLimitStore.ts';
import { AuditLog } from '../../src/audit/requestLog.ts';
import { loadContract } from '../../src/http/contract.ts';
import { contractRouter } from '../../src/http/contractRouter.ts';
import type { HandlerTable } from '../../src/http/handlers.ts';
import { Metrics } from '../../src/http/metrics.ts';
import { authenticate } from '../../src/http/middleware/authenticate.ts';
import { errorHandler } from '../../src/http/middleware/errorHandler.ts';
import { requestContext } from '../../src/http/middleware/requestContext.ts';
import { OperationTable, WRITE_CONFIRMS_KEY } from '../../src/http/operations.ts';
import { KEY_CONFIRMING_OPERATIONS } from '../../src/http/routes/index.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { poolStatements } from '../../src/repositories/transaction.ts';
import { createOrgWithKey } from '../factories/access.ts';
import { test as fixtureTest } from '../helpers/fixtures.ts';

// The write-confirms-the-key rule, held by the contract router for any operation the contract marks: a small
// contract of its own, served through the same router, authentication and error handler as /v1.

const created = { description: 'Written.', content: { 'application/json': { schema: { type: 'object' } } } };

/**
 * Three marked writes: one whose handler returns what its write found as a write does, one whose write found the key
 * revoked, and one whose handler returns no findings.
 */
const CONTRACT = {
  openapi: '3.1.0',
  info: { title: 'write guard test', version: '1' },
  security: [{ ApiKey: [] }],
  components: { securitySchemes: { ApiKey: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/v1/settles': {
      post: {
        operationId: 'settlesGuard',
        [WRITE_CONFIRMS_KEY]: true,
        security: [{ ApiKey: ['deals:write'] }],
        responses: { '201': created },
      },
    },
    '/v1/revoked': {
      post: {
        operationId: 'findsRevoked',
        [WRITE_CONFIRMS_KEY]: true,
        security: [{ ApiKey: ['deals:write'] }],
        responses: { '201': created },
      },
    },
    '/v1/skips': {
      post: {
        operationId: 'skipsGuard',
        [WRITE_CONFIRMS_KEY]: true,
        security: [{ ApiKey: ['deals:write'] }],
        responses: { '201': created },
      },
    },
  },
};

const written = (res: Response) => {
  res.status(201).set('X-Written', 'yes').json({});
};

const HANDLERS = {
  // As the deal-event write does: its first statement read the key (active here); the router then lets it answer.
  settlesGuard: async () => ({ keyActive: true, auditRecorded: false, respond: written }),
  // Its first statement found the key revoked: it wrote nothing.
  findsRevoked: async () => ({ keyActive: false, auditRecorded: false, respond: written }),
  // Forgets the write: returns nothing of what a write found.
  skipsGuard: async () => undefined,
} satisfies HandlerTable;

const test = fixtureTest.extend('guardedApp', async ({ pool }, { onCleanup }) => {
  const logger = createLogger('silent');
  const keys = countingGate('memory', poolStatements(pool), new MemoryWindowCounter());
  const auditLog = new AuditLog(poolStatements(pool), logger);
  auditLog.start();
  onCleanup(() => auditLog.close());
  const metrics = new Metrics(() => auditLog.depth(), keys.store);
  const app: Express = express();
  app.use(requestContext(logger, metrics));
  app.use(
    contractRouter({
      contract: CONTRACT,
      handlers: HANDLERS,
      access: authenticate({ keys, auditLog, metrics }),
      bodyLimitBytes: 1024,
      validateResponses: false,
    }),
  );
  app.use(errorHandler(logger));
  return app;
});

describe('an operation the contract marks x-quotient-write-confirms-key', () => {
  test('answers once its write settled the key confirmation', async ({ db, guardedApp }) => {
    const { rawKey } = await createOrgWithKey(db, { scopes: ['deals:write'] });
    const response = await request(guardedApp).post('/v1/settles').set('authorization', `Bearer ${rawKey}`);
    assert.equal(response.status, 201);
    assert.equal(response.headers['x-written'], 'yes');
  });

  test('a write that found the key revoked answers 401 without its answer or the rate headers', async ({
    db,
    guardedApp,
  }) => {
    const { rawKey } = await createOrgWithKey(db, { scopes: ['deals:write'] });
    const first = await request(guardedApp).post('/v1/settles').set('authorization', `Bearer ${rawKey}`);
    assert.ok(first.headers['x-ratelimit-limit'], 'the process now knows the key');
    const response = await request(guardedApp).post('/v1/revoked').set('authorization', `Bearer ${rawKey}`);
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, { error: 'invalid_key', reason: 'the API key is unknown or revoked' });
    assert.equal(response.headers['x-written'], undefined);
    assert.equal(response.headers['x-ratelimit-limit'], undefined);
  });

  test('a handler that returns no findings of its write is refused: 500, nothing of its answer', async ({
    db,
    guardedApp,
  }) => {
    const { rawKey } = await createOrgWithKey(db, { scopes: ['deals:write'] });
    const response = await request(guardedApp).post('/v1/skips').set('authorization', `Bearer ${rawKey}`);
    assert.equal(response.status, 500);
    assert.deepEqual(response.body, {
      error: 'internal_error',
      reason: `an internal error occurred; request id ${response.headers['x-request-id']}`,
    });
    assert.equal(response.headers['x-written'], undefined);
    assert.ok(response.headers['x-ratelimit-limit'], 'what authentication set stays');
  });

  test('a known key revoked since is refused 401, not passed as the skipping answer', async ({
    db,
    services,
    guardedApp,
  }) => {
    const { org, key, rawKey } = await createOrgWithKey(db, { scopes: ['deals:write'] });
    const first = await request(guardedApp).post('/v1/settles').set('authorization', `Bearer ${rawKey}`);
    assert.equal(first.status, 201, 'the process now knows the key');
    await services.admin.keys.revoke(org.id, key.id);
    const response = await request(guardedApp).post('/v1/skips').set('authorization', `Bearer ${rawKey}`);
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, { error: 'invalid_key', reason: 'the API key is unknown or revoked' });
    assert.equal(response.headers['x-written'], undefined);
  });
});

describe('the mark in the contract', () => {
  test('the handlers typed as key-confirming are those of the operations openapi.yaml marks', () => {
    const marked = new OperationTable(loadContract() as never)
      .all()
      .filter((operation) => operation.writeConfirmsKey)
      .map((operation) => operation.operationId)
      .sort();
    assert.deepEqual(marked, [...KEY_CONFIRMING_OPERATIONS].sort());
  });

  test('the deal-event write is marked in openapi.yaml, read from there by the router', () => {
    const marked = new OperationTable(loadContract() as never).all().filter((operation) => operation.writeConfirmsKey);
    assert.ok(marked.some((operation) => operation.operationId === 'ingestDealEvent'));
  });

  test('a marked operation must declare the 201 its accepted write answers and audits', () => {
    const paths = {
      '/v1/x': { post: { operationId: 'noCreated', [WRITE_CONFIRMS_KEY]: true, responses: { '200': created } } },
    };
    assert.throws(
      () => new OperationTable({ paths }),
      /noCreated is marked x-quotient-write-confirms-key but declares no 201/,
    );
  });
});

describe('the contract router', () => {
  test('refuses, at start, a handler table that misses an operation of the contract it serves', () => {
    const access: RequestHandler = (_req, _res, next) => next();
    const { settlesGuard } = HANDLERS;
    assert.throws(
      () =>
        contractRouter({
          contract: CONTRACT,
          handlers: { settlesGuard },
          access,
          bodyLimitBytes: 1024,
          validateResponses: false,
        }),
      /no handler for findsRevoked, skipsGuard/,
    );
  });
});
