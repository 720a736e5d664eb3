import assert from 'node:assert/strict';
import { test } from 'vitest';
import { readinessCheck } from '../../src/db/database.ts';

// `/readyz`'s check (src/db/database.ts): a database that answers is ready, one that fails or does not answer in
// time is not ready, and probes that arrive while a check waits share it rather than each sending a SELECT 1.

test('a select that answers is ready; one that fails is not', async () => {
  assert.equal(await readinessCheck(async () => 1)(), true);
  assert.equal(await readinessCheck(() => Promise.reject(new Error('connection refused')))(), false);
});

test('a select that never answers is not ready once the check gives up, and the next probe asks again', async () => {
  let selects = 0;
  let answerNow = false;
  const check = readinessCheck(() => {
    selects++;
    return answerNow ? Promise.resolve(1) : new Promise(() => {});
  }, 5);
  assert.equal(await check(), false);
  answerNow = true;
  assert.equal(await check(), true);
  assert.equal(selects, 2);
});

test('probes that arrive while a check waits share its select and its answer', async () => {
  let selects = 0;
  let answer: (value: unknown) => void = () => {};
  const check = readinessCheck(() => {
    selects++;
    return new Promise((resolve) => {
      answer = resolve;
    });
  }, 60_000);
  const probes = [check(), check(), check()];
  answer(1);
  assert.deepEqual(await Promise.all(probes), [true, true, true]);
  assert.equal(selects, 1);
});
