import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('QUOTIENT_VALIDATE_RESPONSES is parsed like every other boolean', () => {
  test.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
  ])('%j means %s', (raw, expected) => {
    assert.equal(loadConfig(raw === undefined ? {} : { QUOTIENT_VALIDATE_RESPONSES: raw }).validateResponses, expected);
  });

  test.each(['yes', 'TRUE', '1'])('%j stops the process with the variable named', (raw) => {
    assert.throws(
      () => loadConfig({ QUOTIENT_VALIDATE_RESPONSES: raw }),
      new RegExp(`QUOTIENT_VALIDATE_RESPONSES must be true or false, got "${raw}"`),
    );
  });
});
