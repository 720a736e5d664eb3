import type { operations } from '../../../generated/openapi.ts';
import { parseDealEvent } from '../../domain/deals/event.ts';
import { DEAL_LIST_STATUSES, type DealListFilters } from '../../domain/deals/feed.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { DealReader } from '../../services/deals.ts';
import { type DealIngestion, findingsOf } from '../../services/ingestion.ts';
import { auditRide } from '../../services/writeGuard.ts';
import { toWireDeal } from '../../wire/deals.ts';
import { viewerOf } from '../middleware/authenticate.ts';
import { pageRequest } from '../pages.ts';
import { rawBodyOf } from '../rawBody.ts';
import type { PublicHandlers } from './index.ts';

type DealList = operations['listDeals']['responses'][200]['content']['application/json'];
type ListQuery = NonNullable<operations['listDeals']['parameters']['query']>;
type DealEventResult = operations['ingestDealEvent']['responses'][201]['content']['application/json'];

export interface DealRouteDeps {
  ingestion: DealIngestion;
  dealReader: DealReader;
}

export function dealHandlers(deps: DealRouteDeps): Pick<PublicHandlers, 'ingestDealEvent' | 'listDeals'> {
  return {
    // The contract marks it x-quotient-write-confirms-key: the event's first statement reads the key, the accepted
    // event records the request's audit entry, and the router settles the key with what the event's write found.
    ingestDealEvent: async (req, { key, write }) => {
      const { orgId, keyId } = key;
      const result = await deps.ingestion.ingest({
        orgId,
        keyId,
        event: parseDealEvent(req.body),
        body: req.body,
        rawBody: rawBodyOf(req),
        receivedAt: new Date(),
        audit: auditRide(write.auditEntry),
      });
      return {
        ...findingsOf(result),
        respond: (res) => {
          if (result.kind === 'key_revoked') throw new Error('a revoked key is answered by the router');
          if (result.kind === 'conflict') throw dedupConflict(result.dedupKey);
          const body: DealEventResult = result.ids;
          if (result.kind === 'replayed') res.status(200).set('Idempotent-Replayed', 'true');
          else res.status(201);
          res.json(body);
        },
      };
    },

    listDeals: async (req, res) => {
      const viewer = viewerOf(res);
      const query = req.query as ListQuery;
      const page = await deps.dealReader.listPage(viewer, { filters: listFilters(query), ...pageRequest(query) });
      const body: DealList = { deals: page.deals.map(toWireDeal), next_cursor: page.nextCursor };
      res.json(body);
    },
  };
}

export function dedupConflict(dedupKey: string): Refusal {
  return new Refusal('dedup_conflict', `dedup_key ${dedupKey} was already used with a different body`);
}

/** The validator has checked types and formats; query values may still arrive as strings. */
function listFilters(validated: unknown): DealListFilters {
  const query = validated as Record<string, string | undefined>;
  const status = query.status as DealListFilters['status'];
  if (status !== undefined && !DEAL_LIST_STATUSES.includes(status)) {
    throw new Refusal('invalid_body', `status: must be one of ${DEAL_LIST_STATUSES.join(', ')}`);
  }
  return {
    ...(status === undefined ? {} : { status }),
    ...(query.stage === undefined ? {} : { stage: query.stage }),
    ...(query.owner_external_id === undefined ? {} : { ownerExternalId: query.owner_external_id }),
    ...(query.external_id === undefined ? {} : { externalId: query.external_id }),
    ...(query.updated_since === undefined ? {} : { updatedSince: new Date(query.updated_since) }),
    includeDeleted: String(query.include_deleted) === 'true',
  };
}
