import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { describeError } from '../../src/lib/logger.ts';

describe('error log lines', () => {
  test('carry the class, message and code of an error and its causes, never the objects hung on it', () => {
    const client = { connectionParameters: { password: 'secret' }, queryQueue: ['SELECT …'] };
    const error = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      client,
      cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', client }),
    });
    const described = describeError(error);
    assert.deepEqual(described, {
      type: 'Error',
      message: 'terminating connection due to administrator command',
      code: '57P01',
      cause: { type: 'Error', message: 'read ECONNRESET', code: 'ECONNRESET' },
    });
    assert.doesNotMatch(JSON.stringify(described), /secret|SELECT/);
  });
});
