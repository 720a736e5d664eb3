import type { operations } from '../../../generated/openapi.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { BatchEvent, DealEventBatch } from '../../services/dealEventBatch.ts';
import type { IngestResult } from '../../services/ingestion.ts';
import { DealEventCheck } from '../dealEventCheck.ts';
import { ERROR_STATUS, errorBody } from '../errors.ts';
import { invalidKey, keyAuthOf, requestAuditOf } from '../middleware/authenticate.ts';
import { dedupConflict } from './deals.ts';
import type { PublicHandlers } from './index.ts';

type BatchBody = operations['ingestDealEventBatch']['requestBody']['content']['application/json'];
type BatchResult = operations['ingestDealEventBatch']['responses'][200]['content']['application/json'];
type ItemResult = BatchResult['results'][number];

export interface DealEventBatchRouteDeps {
  dealEventBatch: DealEventBatch;
  /** The bundled contract, whose `DealEvent` schema each event is checked against. */
  contract: Record<string, unknown>;
}

/**
 * POST /v1/deals/events/batch: each event checked and applied as the single endpoint would, answered in order with
 * the status that endpoint would have answered. Only a revoked key (found by an event's write) refuses the request
 * as a whole; the events applied before it stay applied.
 */
export function dealEventBatchHandlers(deps: DealEventBatchRouteDeps): Pick<PublicHandlers, 'ingestDealEventBatch'> {
  const dealEventCheck = new DealEventCheck(deps.contract);
  return {
    ingestDealEventBatch: async (req, res) => {
      const { orgId, keyId } = keyAuthOf(res);
      const bodies = (req.body as BatchBody).events;
      const results = new Array<ItemResult>(bodies.length);
      const valid: BatchEvent[] = [];
      const validIndexes: number[] = [];
      bodies.forEach((body, index) => {
        try {
          valid.push({ event: dealEventCheck.check(body), body });
          validIndexes.push(index);
        } catch (error) {
          if (!(error instanceof Refusal)) throw error;
          results[index] = {
            status: ERROR_STATUS[error.code] as ItemResult['status'],
            error: errorBody(error) as ItemResult['error'],
          };
        }
      });
      const audit = requestAuditOf(res);
      const applied = await deps.dealEventBatch.ingestAll({
        orgId,
        keyId,
        events: valid,
        receivedAt: new Date(),
        auditEntry: audit.entryForWrite(200),
      });
      // The first accepted event recorded the request's audit entry in its transaction.
      if (applied.some((result) => result.kind === 'accepted')) audit.recordedWithWrite();
      applied.forEach((result, position) => {
        if (result.kind === 'key_revoked') throw invalidKey();
        results[validIndexes[position] as number] = itemResult(result);
      });
      res.status(200).json({ results } satisfies BatchResult);
    },
  };
}

function itemResult(result: Exclude<IngestResult, { kind: 'key_revoked' }>): ItemResult {
  switch (result.kind) {
    case 'accepted':
      return { status: 201, ...result.ids };
    case 'replayed':
      return { status: 200, ...result.ids };
    case 'conflict':
      return { status: 422, error: errorBody(dedupConflict(result.dedupKey)) as ItemResult['error'] };
  }
}
