import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'vitest';
import { createLogger } from '../../src/lib/logger.ts';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

describe('logs never carry clients or passwords', () => {
  test('an error that holds a driver client is logged as type, code, message and stack only', () => {
    const { logger, lines } = capture();
    const error = Object.assign(new Error('Connection terminated unexpectedly'), {
      code: '57P01',
      client: { connectionParameters: { password: 'hunter2', user: 'postgres' }, _queryable: false },
    });
    logger.error({ err: error }, 'could not write audit entries');
    const logged = JSON.parse(lines[0] as string) as { err: Record<string, unknown> };
    assert.deepEqual(Object.keys(logged.err).sort(), ['code', 'message', 'stack', 'type']);
    assert.equal(logged.err.message, 'Connection terminated unexpectedly');
    assert.equal(logged.err.code, '57P01');
    assert.doesNotMatch(lines[0] as string, /hunter2|connectionParameters/);
  });

  test('a connection string in a message, an error or its cause has its password masked', () => {
    const { logger, lines } = capture();
    const cause = new Error('connect ECONNREFUSED postgresql://app:s3cret@db.internal:5432/quotient');
    logger.warn({ err: new Error('open failed', { cause }) }, 'using postgres://admin:p4ss@10.0.0.1/x');
    const line = lines[0] as string;
    assert.doesNotMatch(line, /s3cret|p4ss/);
    assert.match(line, /postgresql:\/\/app:\*\*\*@db\.internal:5432\/quotient/);
    assert.match(line, /postgres:\/\/admin:\*\*\*@10\.0\.0\.1\/x/);
  });
});
