import assert from 'node:assert/strict';
import express, { type Express, type RequestHandler } from 'express';
import request from 'supertest';
import { describe } from 'vitest';
import { countingGate, MemoryWindowCounter } from '../../src/access/rateLimitStore.ts';
import { AuditLog } from '../../src/audit/requestLog.ts';
import { loadContract } from '../../src/http/contract.ts';
import { contractRouter } from '../../src/http/contractRouter.ts';
import type { HandlerTable } from '../../src/http/handlers.ts';
import { keyConfirmationOf } from '../../src/http/keyConfirmation.ts';
import { Metrics } from '../../src/http/metrics.ts';
import { authenticate } from '../../src/http/middleware/authenticate.ts';
import { errorHandler } from '../../src/http/middleware/errorHandler.ts';
import { requestContext } from '../../src/http/middleware/requestContext.ts';
import { OperationTable, WRITE_CONFIRMS_KEY } from '../../src/http/operations.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { poolStatements } from '../../src/repositories/transaction.ts';
import { createOrgWithKey } from '../factories/access.ts';
import { test as fixtureTest } from '../helpers/fixtures.ts';

// The write-confirms-the-key rule, held by the contract router for any operation the contract marks: a small
// contract of its own, served through the same router, authentication and error handler as /v1.

const created = { description: 'Written.', content: { 'application/json': { schema: { type: 'object' } } } };

/** Two marked writes: one whose handler settles its key confirmation as a write does, one whose handler skips it. */
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

const HANDLERS = {
  // As the deal-event write does: its first statement read the key (active here), then it answers.
  settlesGuard: (_req, res) => {
    keyConfirmationOf(res)?.settle(true);
    res.status(201).set('X-Written', 'yes').json({});
  },
  // Forgets the guard: answers as if it had written.
  skipsGuard: (_req, res) => {
    res.status(201).set('X-Written', 'yes').json({});
  },
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

  test('a handler that answers without settling it is refused: 500, none of its headers', async ({
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
      /no handler for skipsGuard/,
    );
  });
});
