import { canonicalDigest } from '../../domain/json.ts';
import { countIngestedEvent } from '../../lib/operationsMetrics.ts';
import type { Transactor } from '../../repositories/transaction.ts';
import {
  type AppliedType,
  type ApplySteps,
  applyAlone,
  dedupKeyOf,
  type IngestRequest,
  type IngestResult,
} from './applyStep.ts';

/** One event in one READ COMMITTED transaction of its own, through the apply step; counted once committed. */
export async function ingestEvent(steps: ApplySteps, pool: Transactor, request: IngestRequest): Promise<IngestResult> {
  const dedupKey = dedupKeyOf(request);
  const digest = canonicalDigest(request.body);
  const applied: AppliedType = {};
  const result = await pool.run((tx) => applyAlone(steps, tx, request, dedupKey, digest, applied));
  if (applied.domainEventType) countIngestedEvent(applied.domainEventType);
  return result;
}
