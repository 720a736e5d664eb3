import { createHmac, timingSafeEqual } from 'node:crypto';
import { BUILT_IN_MAPPINGS, type Mapping } from '../imports/mapping.ts';
import type { Cell } from '../imports/recordMapper.ts';
import { isJsonObject, type JsonValue } from '../json.ts';

export { matchOwners, type OwnerMatch } from './owners.ts';

// HubSpot as its public API describes it, for the connector: which deal properties are read, how a deal record of
// the CRM v3 objects API becomes a record of the import mapping model (`hubspot-api`), which pipeline stages are won
// and lost (a stage's `metadata.isClosed` and `metadata.probability`), and the webhooks' v3 signature and events.

/** The deal properties the connector reads: what the `hubspot-api` mapping maps, and the custom ones it adds. */
export function dealProperties(mapping: Mapping): string[] {
  const sources = [mapping.id, mapping.stage, mapping.amount, mapping.close_date, mapping.owner, mapping.currency];
  const named = [
    ...sources.flatMap((source) => (source === undefined ? [] : typeof source === 'string' ? [source] : source)),
    ...Object.values(mapping.custom).flatMap((spec) => (typeof spec.column === 'string' ? [spec.column] : spec.column)),
    'hs_lastmodifieddate',
  ];
  return [...new Set(named)].filter((name) => name !== 'archived');
}

export interface PipelineStage {
  pipeline: string;
  stageId: string;
  label: string;
  isClosed: boolean;
  probability: number | undefined;
}

/** `GET /crm/v3/pipelines/deals`'s results, as stages: HubSpot writes the metadata as strings ("true", "1.0"). */
export function stagesOf(
  pipelines: ReadonlyArray<{ label: string; stages: ReadonlyArray<{ id: string; label: string; metadata?: unknown }> }>,
): PipelineStage[] {
  return pipelines.flatMap((pipeline) =>
    pipeline.stages.map((stage) => {
      const metadata = (isJsonObject(stage.metadata as JsonValue) ? stage.metadata : {}) as Record<string, unknown>;
      const probability = Number(metadata.probability);
      return {
        pipeline: pipeline.label,
        stageId: stage.id,
        label: stage.label,
        isClosed: String(metadata.isClosed) === 'true',
        probability: metadata.probability === undefined || Number.isNaN(probability) ? undefined : probability,
      };
    }),
  );
}

/** Won: closed with probability 1.0. Lost: closed with any other probability (HubSpot's closed lost is 0). */
export function wonAndLost(stages: readonly PipelineStage[]): { won: PipelineStage[]; lost: PipelineStage[] } {
  const closed = stages.filter((stage) => stage.isClosed);
  return {
    won: closed.filter((stage) => stage.probability === 1),
    lost: closed.filter((stage) => stage.probability !== 1),
  };
}

/**
 * The `hubspot-api` mapping with the portal's won and lost stages (by stage id, as `dealstage` carries them). Any
 * stage not closed is an open deal.
 */
export function portalMapping(stages: readonly PipelineStage[]): Mapping {
  const base = BUILT_IN_MAPPINGS['hubspot-api'] as Mapping;
  const { won, lost } = wonAndLost(stages);
  return { ...base, won_stages: won.map((stage) => stage.stageId), lost_stages: lost.map((stage) => stage.stageId) };
}

/** A deal of the objects API (or of a batch read). */
export interface HubSpotDeal {
  id: string;
  properties: Record<string, string | null>;
  archived?: boolean;
}

/**
 * The deal as a record of the mapping model: its property names as the header, its values as cells. Dates come as
 * ISO instants: the close date is HubSpot's UTC day, the modification time an instant. The owner id is replaced by
 * the rep it maps to (`repOfOwner`).
 */
export function dealRecord(
  deal: HubSpotDeal,
  repOfOwner: (ownerId: string) => string,
): { header: string[]; cells: Cell[] } {
  const header: string[] = [];
  const cells: Cell[] = [];
  for (const [name, value] of Object.entries(deal.properties)) {
    if (name === 'hs_object_id' || name === 'archived') continue;
    header.push(name);
    if (value === null || value === '') cells.push(undefined);
    else if ((name === 'closedate' || name === 'hs_lastmodifieddate') && !Number.isNaN(Date.parse(value))) {
      cells.push(new Date(value));
    } else if (name === 'hubspot_owner_id') cells.push(repOfOwner(value));
    else cells.push(value);
  }
  header.push('hs_object_id', 'archived');
  cells.push(deal.id, deal.archived === true);
  return { header, cells };
}

/**
 * The dedup key of a deal's version: the portal, the deal and its modification time, so that a redelivered webhook,
 * a re-sync and a webhook after a sync of the same version change nothing twice.
 */
export function versionKey(portalId: string, dealId: string, modifiedAt: string | null | undefined): string {
  const at = modifiedAt ? Date.parse(modifiedAt) : Number.NaN;
  return `hubspot:${portalId}:${dealId}:${Number.isNaN(at) ? 'unknown' : at}`;
}

/** The dedup key of a deal's deletion (a `deal.deletion` event, or an archived deal read by a sync). */
export function deletionKey(portalId: string, dealId: string): string {
  return `hubspot:${portalId}:${dealId}:deleted`;
}

/** The wait a 429 asks for: its `Retry-After` in seconds (HubSpot's form), else a doubling backoff; bounded. */
export function retryWaitMs(retryAfter: string | undefined, attempt: number, maxWaitMs: number): number {
  const seconds = retryAfter === undefined ? Number.NaN : Number(retryAfter);
  const asked = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000 * 2 ** attempt;
  // Never a tight loop: at least 100 ms between two calls the limit refused.
  return Math.min(maxWaitMs, Math.max(100, asked));
}

/** Requests older than this are refused: HubSpot's own rule for its v3 signatures. */
export const SIGNATURE_MAX_AGE_MS = 5 * 60 * 1000;

export type SignatureCheck = 'valid' | 'missing' | 'stale' | 'invalid';

/**
 * `X-HubSpot-Signature-v3`: base64 of the HMAC-SHA256, under the app's client secret, of the method, the URI as
 * HubSpot called it, the body and `X-HubSpot-Request-Timestamp` (milliseconds), concatenated.
 */
export function checkSignatureV3(input: {
  method: string;
  uri: string;
  body: string;
  timestamp: string | undefined;
  signature: string | undefined;
  clientSecret: string;
  now: Date;
}): SignatureCheck {
  if (!input.signature || !input.timestamp) return 'missing';
  const sent = Number(input.timestamp);
  if (!Number.isFinite(sent) || Math.abs(input.now.getTime() - sent) > SIGNATURE_MAX_AGE_MS) return 'stale';
  const expected = createHmac('sha256', input.clientSecret)
    .update(`${input.method}${decodedUri(input.uri)}${input.body}${input.timestamp}`)
    .digest();
  const given = Buffer.from(input.signature, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'valid' : 'invalid';
}

/** HubSpot decodes these characters of the URI before signing (its v3 signature's documented list). */
function decodedUri(uri: string): string {
  const decoded: Record<string, string> = {
    '%3A': ':',
    '%2F': '/',
    '%3F': '?',
    '%40': '@',
    '%21': '!',
    '%24': '$',
    '%27': "'",
    '%28': '(',
    '%29': ')',
    '%2A': '*',
    '%2C': ',',
    '%3B': ';',
  };
  return uri.replace(
    /%(?:3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi,
    (encoded) => decoded[encoded.toUpperCase()] ?? encoded,
  );
}

export interface DealChangeEvent {
  dealId: string;
  kind: 'change' | 'deletion';
  occurredAt: number;
}

/**
 * A webhook batch's deal events: each names a deal and what happened to it; events of other objects are ignored.
 * Null when the body is not a batch of events.
 */
export function dealEventsOf(body: unknown): DealChangeEvent[] | null {
  if (!Array.isArray(body)) return null;
  const events: DealChangeEvent[] = [];
  for (const item of body) {
    if (typeof item !== 'object' || item === null) return null;
    const { objectId, subscriptionType, occurredAt } = item as Record<string, unknown>;
    if (typeof subscriptionType !== 'string' || (typeof objectId !== 'number' && typeof objectId !== 'string')) {
      return null;
    }
    if (!subscriptionType.startsWith('deal.')) continue;
    if (subscriptionType === 'deal.merge') {
      const merge = mergeOf(item as Record<string, unknown>);
      if (merge === null) return null;
      const at = typeof occurredAt === 'number' ? occurredAt : 0;
      for (const dealId of merge.mergedAway) events.push({ dealId, kind: 'deletion', occurredAt: at });
      events.push({ dealId: merge.survivor, kind: 'change', occurredAt: at });
      continue;
    }
    events.push({
      dealId: String(objectId),
      kind: subscriptionType === 'deal.deletion' ? 'deletion' : 'change',
      occurredAt: typeof occurredAt === 'number' ? occurredAt : 0,
    });
  }
  return events;
}

/**
 * A `deal.merge` event as HubSpot's webhooks reference describes it: `objectId` (and `primaryObjectId`) the deal that
 * wins, `mergedObjectIds` the deals merged into it, `newObjectId` the deal the merge created when it created one.
 * The deal that remains is the new one, else the winner; every other deal named is merged away (a deletion).
 */
export function mergeOf(item: Record<string, unknown>): { survivor: string; mergedAway: string[] } | null {
  const id = (value: unknown) =>
    (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value !== '')
      ? String(value)
      : undefined;
  const merged = item.mergedObjectIds;
  if (merged !== undefined && !Array.isArray(merged)) return null;
  const survivor = id(item.newObjectId) ?? id(item.primaryObjectId) ?? id(item.objectId);
  if (survivor === undefined) return null;
  const named = [id(item.objectId), id(item.primaryObjectId), ...(merged ?? []).map(id)];
  if (named.some((value, index) => value === undefined && index > 1)) return null;
  const mergedAway = [...new Set(named.filter((value): value is string => value !== undefined))].filter(
    (value) => value !== survivor,
  );
  return { survivor, mergedAway };
}

/** A deletion waiting among a connection's pending records; a change waits as the bare deal id. */
const PENDING_DELETION = 'deleted:';

/** How a deal event waits among a connection's pending records, until it is applied. */
export function pendingEntry(event: DealChangeEvent): string {
  return event.kind === 'deletion' ? `${PENDING_DELETION}${event.dealId}` : event.dealId;
}

/** The pending records as the events they stand for. */
export function pendingEvents(entries: readonly string[]): DealChangeEvent[] {
  return entries.map((entry) =>
    entry.startsWith(PENDING_DELETION)
      ? { dealId: entry.slice(PENDING_DELETION.length), kind: 'deletion', occurredAt: 0 }
      : { dealId: entry, kind: 'change', occurredAt: 0 },
  );
}
