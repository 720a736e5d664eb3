import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, test } from 'vitest';
import { Refusal } from '../../src/domain/refusal.ts';
import { loadAdminContract, loadContract } from '../../src/http/contract.ts';
import { ERROR_STATUS } from '../../src/http/errors.ts';
import { errorHandler, listedErrorCodes } from '../../src/http/middleware/errorHandler.ts';
import { createLogger } from '../../src/lib/logger.ts';

// The codes of the refusal type, the code → status table and the contracts' `Error.error` enums are one list.

const publicContract = loadContract();
const adminContract = loadAdminContract();

function enumDescriptions(contract: Record<string, unknown>): string[] {
  const schemas = (contract.components as { schemas: Record<string, unknown> }).schemas;
  const error = schemas.Error as { properties: { error: { 'x-enumDescriptions'?: Record<string, string> } } };
  return Object.keys(error.properties.error['x-enumDescriptions'] ?? {}).sort();
}

describe('error codes', () => {
  test('the status table has exactly the codes the two contracts list', () => {
    const listed = new Set([...listedErrorCodes(publicContract), ...listedErrorCodes(adminContract)]);
    assert.deepEqual(Object.keys(ERROR_STATUS).sort(), [...listed].sort());
  });

  test('each contract describes each code it lists, and no other', () => {
    for (const contract of [publicContract, adminContract]) {
      assert.deepEqual(enumDescriptions(contract), [...listedErrorCodes(contract)].sort());
    }
  });

  test('in test mode, a code the contract of the path does not list is answered as a 500 naming it', async () => {
    const app = express();
    app.use((_req, res, next) => {
      res.locals.requestId = 'req_test';
      next();
    });
    app.get('/admin/v1/sessions', () => {
      throw new Refusal('invalid_credentials', 'the email or the password is wrong');
    });
    app.get('/v1/', () => {
      throw new Refusal('invalid_credentials', 'the email or the password is wrong');
    });
    app.get('/v1/fault', () => {
      throw new Error('a fault');
    });
    app.use(
      errorHandler(createLogger('silent'), {
        checkedAgainst: [
          { pathPrefix: '/admin/v1', contract: adminContract },
          { pathPrefix: '', contract: publicContract },
        ],
      }),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const admin = await fetch(`${url}/admin/v1/sessions`);
      assert.equal(admin.status, 401);
      assert.deepEqual(await admin.json(), {
        error: 'invalid_credentials',
        reason: 'the email or the password is wrong',
      });
      const unlisted = await fetch(`${url}/v1/`);
      assert.equal(unlisted.status, 500);
      assert.deepEqual(await unlisted.json(), {
        error: 'internal_error',
        reason: 'contract violation: the error code invalid_credentials is not in the contract',
      });
      const fault = await fetch(`${url}/v1/fault`);
      assert.equal(fault.status, 500);
      assert.deepEqual(await fault.json(), {
        error: 'internal_error',
        reason: 'an internal error occurred; request id req_test',
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
