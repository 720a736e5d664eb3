import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { keysetCursor } from '../../src/domain/lists/keysetCursor.ts';
import { ERROR_STATUS, errorBody } from '../../src/http/errors.ts';
import { toRefusal } from '../../src/http/middleware/errorHandler.ts';

function refusalOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  assert.fail('expected a refusal');
}

describe('error mapping', () => {
  test('a cursor a list refused is 400 invalid_body with a reason starting cursor:, for every list alike', () => {
    const codec = keysetCursor({ idPrefix: 'deal', timeMember: 'u' });
    const error = toRefusal(
      refusalOf(() => codec.decode('not-a-cursor', 'fingerprint')),
      'req_abc',
    );
    assert.equal(ERROR_STATUS[error.code], 400);
    assert.deepEqual(errorBody(error), {
      error: 'invalid_body',
      reason: 'cursor: is malformed; pass the next_cursor of a previous page unchanged',
    });
  });

  test('an unexpected error becomes internal_error that names only the request id', () => {
    const error = toRefusal(new Error('relation "api_keys" does not exist: SELECT * FROM api_keys'), 'req_abc');
    assert.equal(ERROR_STATUS[error.code], 500);
    assert.deepEqual(errorBody(error), {
      error: 'internal_error',
      reason: 'an internal error occurred; request id req_abc',
    });
  });

  test('a refused database connection becomes 503 unavailable with Retry-After', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const error = toRefusal(new Error('query failed', { cause: refused }), 'req_abc');
    assert.equal(ERROR_STATUS[error.code], 503);
    assert.equal(error.code, 'unavailable');
    assert.equal(error.headers['Retry-After'], '5');
    assert.doesNotMatch(error.reason ?? '', /5432/);
  });

  test('timeouts, exhaustion and lost sessions become 503 unavailable; a statement error stays a 500', () => {
    const unavailable = [
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated due to connection timeout'),
      new Error('Connection terminated unexpectedly'),
      new Error('Query read timeout'),
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
      Object.assign(new Error('prisma'), { code: 'P2024' }),
      Object.assign(new Error('adapter'), { cause: { kind: 'ConnectionClosed' } }),
    ];
    for (const cause of unavailable) {
      const error = toRefusal(cause, 'req_abc');
      assert.equal(error.code, 'unavailable', cause.message);
      assert.equal(error.headers['Retry-After'], '5');
    }
    const violation = Object.assign(new Error('duplicate key value'), { code: '23505' });
    assert.equal(toRefusal(violation, 'req_abc').code, 'internal_error');
  });

  test('a compressed body that does not inflate is 400 invalid_json', () => {
    const zlib = Object.assign(new Error('incorrect header check'), { status: 400, code: 'Z_DATA_ERROR' });
    assert.equal(toRefusal(zlib, 'r').code, 'invalid_json');
    const brotli = Object.assign(new Error('Decompression failed'), {
      status: 400,
      code: 'ERR__ERROR_FORMAT_PADDING_1',
    });
    assert.equal(toRefusal(brotli, 'r').code, 'invalid_json');
  });

  test('a validator error names the field as a dotted path', () => {
    const error = toRefusal(
      { status: 400, errors: [{ path: '/body/state/amount_cents', message: 'must be integer' }] },
      'r',
    );
    assert.deepEqual(errorBody(error), { error: 'invalid_body', reason: 'state.amount_cents: must be integer' });
  });

  test('a missing required property is named with its parent path', () => {
    const error = toRefusal(
      { status: 400, errors: [{ path: '/body/external_id', message: "must have required property 'external_id'" }] },
      'r',
    );
    assert.equal(error.reason, 'external_id: is required');
  });

  test('a malformed JSON body from the body parser is invalid_json', () => {
    assert.equal(toRefusal({ type: 'entity.parse.failed', status: 400 }, 'r').code, 'invalid_json');
    assert.equal(toRefusal({ type: 'entity.too.large', status: 413 }, 'r').code, 'payload_too_large');
  });
});
