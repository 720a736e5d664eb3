import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { toApiError } from '../../src/http/middleware/errorHandler.ts';

describe('error mapping', () => {
  test('an unexpected error becomes internal_error that names only the request id', () => {
    const error = toApiError(new Error('relation "api_keys" does not exist: SELECT * FROM api_keys'), 'req_abc');
    assert.equal(error.status, 500);
    assert.deepEqual(error.toBody(), {
      error: 'internal_error',
      reason: 'an internal error occurred; request id req_abc',
    });
  });

  test('a refused database connection becomes 503 unavailable with Retry-After', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const error = toApiError(new Error('query failed', { cause: refused }), 'req_abc');
    assert.equal(error.status, 503);
    assert.equal(error.code, 'unavailable');
    assert.equal(error.headers['Retry-After'], '5');
    assert.doesNotMatch(error.reason ?? '', /5432/);
  });

  test('a validator error names the field as a dotted path', () => {
    const error = toApiError(
      { status: 400, errors: [{ path: '/body/state/amount_cents', message: 'must be integer' }] },
      'r',
    );
    assert.deepEqual(error.toBody(), { error: 'invalid_body', reason: 'state.amount_cents: must be integer' });
  });

  test('a missing required property is named with its parent path', () => {
    const error = toApiError(
      { status: 400, errors: [{ path: '/body/external_id', message: "must have required property 'external_id'" }] },
      'r',
    );
    assert.equal(error.reason, 'external_id: is required');
  });

  test('a malformed JSON body from the body parser is invalid_json', () => {
    assert.equal(toApiError({ type: 'entity.parse.failed', status: 400 }, 'r').code, 'invalid_json');
    assert.equal(toApiError({ type: 'entity.too.large', status: 413 }, 'r').code, 'payload_too_large');
  });
});
