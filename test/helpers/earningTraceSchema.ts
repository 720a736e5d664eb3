import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { reconcileLine } from '../../src/domain/earnings/ledger.ts';
import type { LineTarget } from '../../src/domain/earnings/types.ts';

// The contract's `EarningTrace` schema, compiled from the bundled document, so that unit tests hold every
// trace the engine writes to the shape `GET /v1/earnings/{id}` promises.

const DOCUMENT_ID = 'quotient-openapi.json';
const openapi = JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8')) as object;

// OpenAPI keywords such as `example` and `discriminator` are annotations to a JSON Schema validator;
// `strict: false` lets Ajv ignore them rather than refuse the document (the `oneOf` it annotates still
// decides, since each step's `type` is a const).
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...openapi, $id: DOCUMENT_ID });

const validateTrace = ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/EarningTrace`);
if (!validateTrace) throw new Error('generated/openapi.json has no EarningTrace schema');

export function assertValidTrace(trace: unknown): void {
  const valid = validateTrace?.(trace);
  assert.ok(
    valid,
    `trace does not match EarningTrace: ${ajv.errorsText(validateTrace?.errors)}\n${JSON.stringify(trace, null, 2)}`,
  );
}

/**
 * Checks the trace each target would be written with. The engine's traces are completed by the ledger,
 * so every target is reconciled against a line with a locked row: that makes its pending row non-zero
 * (a clawback for a zero target) and so exercises the trace of every line, not only the paying ones.
 */
export function assertTargetTracesValid(targets: readonly LineTarget[]): void {
  for (const target of targets) {
    const locked = {
      id: 'earn_00000000000000000000000000',
      status: 'approved' as const,
      amount_cents: 7,
      period_id: target.period_id,
    };
    const { write } = reconcileLine(target, [locked], new Map([[target.period_id, 'locked' as const]]));
    assert.ok(write.length > 0 || target.earned_cents === 7);
    for (const row of write) assertValidTrace(row.trace);
  }
}
