import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { cliLogLevel, launchedByNpm, loadConfig, portOf, secretFromEnvironment } from '../../src/config.ts';

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

describe('QUOTIENT_RATE_LIMIT_WINDOW_SECONDS', () => {
  test.each([
    [undefined, 60],
    ['', 60],
    ['60', 60],
    ['1', 1],
    ['3600', 3600],
    ['86400', 86400],
  ])('%j is a window of %i seconds', (raw, expected) => {
    const env = raw === undefined ? {} : { QUOTIENT_RATE_LIMIT_WINDOW_SECONDS: raw };
    assert.equal(loadConfig(env).rateLimits.windowSeconds, expected);
  });

  test.each(['0', '-5', '1.5', '86401', '60s', 'a minute'])('%j stops the process with the variable named', (raw) => {
    assert.throws(
      () => loadConfig({ QUOTIENT_RATE_LIMIT_WINDOW_SECONDS: raw }),
      new RegExp(`QUOTIENT_RATE_LIMIT_WINDOW_SECONDS must be a whole number of seconds from 1 to 86400, got "${raw}"`),
    );
  });
});

describe('the settings the CLI reads, all from config.ts', () => {
  test('quotient serve --port takes the place of PORT, and is checked like it', () => {
    assert.equal(loadConfig({ PORT: '4000' }).port, 4000);
    assert.equal(loadConfig({ PORT: '4000' }, { port: '5000' }).port, 5000);
    assert.equal(portOf(undefined), 3000);
    assert.throws(() => loadConfig({}, { port: '70000' }), /PORT must be an integer from 0 to 65535, got "70000"/);
  });

  test('a CLI command logs warnings unless LOG_LEVEL says otherwise', () => {
    assert.equal(cliLogLevel({}), 'warn');
    assert.equal(cliLogLevel({ LOG_LEVEL: ' ' }), 'warn');
    assert.equal(cliLogLevel({ LOG_LEVEL: 'debug' }), 'debug');
  });

  test('npm launched the process when it set npm_command', () => {
    assert.equal(launchedByNpm({ npm_command: 'start' }), true);
    assert.equal(launchedByNpm({}), false);
  });

  test('a secret named by --client-secret-env is its variable, unset when empty', () => {
    assert.equal(secretFromEnvironment('IDP_SECRET', { IDP_SECRET: 's3cret' }), 's3cret');
    assert.equal(secretFromEnvironment('IDP_SECRET', { IDP_SECRET: '' }), undefined);
    assert.equal(secretFromEnvironment('IDP_SECRET', {}), undefined);
  });
});
