import { randomBytes } from 'node:crypto';
import type { AdminActor } from '../../audit/adminEntries.ts';
import type { DealEvent } from '../../domain/deals/event.ts';
import { applyEvent, type CurrentDeal, type Transition } from '../../domain/deals/projection.ts';
import { newId } from '../../lib/ids.ts';
import type { AppliedEvent, DealRecord, StoredSplit } from '../../repositories/deals.ts';
import * as deals from '../../repositories/deals.ts';
import * as domainEvents from '../../repositories/domainEvents.ts';
import * as sourceEvents from '../../repositories/sourceEvents.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import type { DealChange, DealChangeListener } from '../dealChanges.ts';
import { requestOfNewReps } from '../newRepAcceptances.ts';
import type { OrgConfigCache } from '../orgConfig.ts';
import type { AuditRide, KeyFindings } from '../writeGuard.ts';
import { repOf, requesterOf, splitsWithReps } from './reps.ts';

// The one apply step of the deal-event pipeline, shared by the single event, the pipelined batch, the bulk import
// and the rehearsal: the event's first statement (source event claiming the dedup key, the deal opened), then the
// domain event and the projection, then the deal-change listener.

export interface IngestRequest {
  orgId: string;
  keyId: string | null;
  event: DealEvent;
  /** The parsed body, for the digest that replays are compared by. */
  body: unknown;
  /** The body as received, kept with the source event. */
  rawBody: string;
  receivedAt: Date;
  /**
   * The request's audit entry, recorded in the transaction of the event that is accepted first, so an accepted
   * event is never without it. Replays and conflicts write nothing and are audited as reads (see findingsOf).
   */
  audit?: AuditRide;
  /**
   * Who sent the event when no key did (`keyId` null): the admin of an import (else the CLI). The actor of what a
   * rep's first event sets off: their requests to accept their plans (docs/plan-acceptance.md).
   */
  actor?: AdminActor;
}

export interface EventIds {
  source_event_id: string;
  domain_event_id: string;
  deal_id: string;
}

export type IngestResult =
  | { kind: 'accepted'; ids: EventIds }
  /** The dedup key was used before with the same body: the original ids, nothing written. */
  | { kind: 'replayed'; ids: EventIds }
  /** The dedup key was used before with another body: nothing written. */
  | { kind: 'conflict'; dedupKey: string }
  /** The request's key (`keyId`) is revoked, as the event's first statement found it: nothing written. */
  | { kind: 'key_revoked' };

/**
 * What an event's write found of the request's key, as the HTTP layer acts on it after the transaction: its first
 * statement read the key (`key_revoked`: nothing written), and an accepted event recorded the request's audit entry.
 */
export function findingsOf(result: IngestResult): KeyFindings {
  return { keyActive: result.kind !== 'key_revoked', auditRecorded: result.kind === 'accepted' };
}

/** What an event applied to its deal: its domain event's type ('stale' for a stale one), for the metrics. */
export interface AppliedType {
  domainEventType?: string;
}

/** A batch's events as its transaction applies them: each with its dedup key, body digest and applied type. */
export interface PreparedEvents {
  readonly requests: readonly IngestRequest[];
  readonly dedupKeys: readonly string[];
  readonly digests: readonly string[];
  readonly applied: readonly AppliedType[];
}

/** What every apply step runs with: the deal-change listener (the earnings engine) and the orgs' configurations. */
export interface ApplySteps {
  readonly listener: DealChangeListener;
  readonly configs: OrgConfigCache;
}

/** One event alone in its transaction: the first statement, the rest, then a new rep's requests. */
export async function applyAlone(
  steps: ApplySteps,
  tx: Transaction,
  request: IngestRequest,
  dedupKey: string,
  digest: string,
  applied: AppliedType,
): Promise<IngestResult> {
  const { sourceEventId, opened } = recordEvent(tx, request, dedupKey, digest);
  const created: string[] = [];
  const result = await applyOpened(steps, tx, request, dedupKey, digest, applied, sourceEventId, await opened, created);
  // A rep's first event: they are asked to accept the plans assigned to them. Nothing more for a known rep.
  if (created.length > 0) await requestOfNewReps(tx, request.orgId, created, requesterOf(request));
  return result;
}

/** Issues the event's first statement (recordAndOpenDeal); the caller awaits it when it needs the deal. */
export function recordEvent(
  tx: Transaction,
  request: IngestRequest,
  dedupKey: string,
  digest: string,
): { sourceEventId: string; opened: Promise<sourceEvents.OpenedDeal> } {
  const { orgId, event } = request;
  const sourceEventId = newId('se');
  const owner = event.patch.standard.owner_external_id ?? null;
  const opened = sourceEvents.recordAndOpenDeal(
    tx,
    orgId,
    {
      id: sourceEventId,
      keyId: request.keyId,
      dedupKey,
      externalId: event.externalId,
      rawBody: request.rawBody,
      bodyDigest: digest,
      receivedAt: request.receivedAt,
    },
    {
      newId: newId('deal'),
      ownerExternalId: owner,
      splitExternalIds: (event.splits ?? []).map((split) => split.owner_external_id),
    },
  );
  return { sourceEventId, opened };
}

/**
 * The rest of the event once its first statement answered. With `deferred` (the pipelined batch), the statement
 * that applies the event is issued and not awaited, and the change it makes is collected there for the listener.
 * The users (reps) the event created are pushed to `created`.
 */
export async function applyOpened(
  steps: ApplySteps,
  tx: Transaction,
  request: IngestRequest,
  dedupKey: string,
  digest: string,
  applied: AppliedType,
  sourceEventId: string,
  opened: sourceEvents.OpenedDeal,
  created: string[],
  deferred?: Array<Promise<DealChange>>,
): Promise<IngestResult> {
  const { orgId, event } = request;
  const owner = event.patch.standard.owner_external_id ?? null;
  // Nothing was written, so committing the transaction keeps the promise of no side effects.
  if (!opened.recorded) {
    return opened.keyRevoked ? { kind: 'key_revoked' } : replay(tx, orgId, dedupKey, digest);
  }

  created.push(...opened.createdUserIds);
  const deal = opened.deal ?? (await lockDeal(tx, orgId, event.externalId));
  const ownerUserId = owner === null ? null : (opened.ownerUserId ?? (await repOf(tx, orgId, owner, created)));
  const before = deal.version === 0 ? null : deal;
  const config = await steps.configs.at(tx, orgId, opened.configVersion);
  const transition = applyEvent(before && currentOf(before), event, opened.stages, config.defaultCurrency);
  const domainEventId = newId('de');
  const ids: EventIds = { source_event_id: sourceEventId, domain_event_id: domainEventId, deal_id: deal.id };

  // The accepted event's audit entry rides on the statement that records its domain event.
  const audit = request.audit?.take() ?? null;
  if (transition.stale) {
    await domainEvents.recordStale(
      tx,
      orgId,
      {
        id: domainEventId,
        sourceEventId,
        dealId: deal.id,
        eventTypeHint: event.eventType,
        occurredAt: event.occurredAt as Date,
      },
      audit,
    );
    applied.domainEventType = 'stale';
    return { kind: 'accepted', ids };
  }

  const ownerNamed = event.patch.standard.owner_external_id !== undefined;
  const splits = await splitsWithReps(tx, orgId, transition.splits, deal.splits, created);
  const applying = deals.applyEvent(
    tx,
    orgId,
    deal.id,
    appliedEventOf(
      event,
      transition,
      { domainEventId, sourceEventId },
      splits,
      ownerNamed ? ownerUserId : deal.user_id,
    ),
    audit,
  );
  const changeOf = (appliedEvent: Awaited<typeof applying>): DealChange => ({
    org: { id: orgId, stages: opened.stages, config },
    before,
    after: appliedEvent.deal,
    domainEvent: appliedEvent.domainEvent,
  });
  if (deferred) {
    const change = applying.then(changeOf);
    // Awaited with the others once every event is applied; a failure also fails the statements after it.
    change.catch(() => {});
    deferred.push(change);
  } else await steps.listener.onDealChanged(tx, changeOf(await applying));
  applied.domainEventType = transition.type;
  return { kind: 'accepted', ids };
}

/** The dedup key is taken, by a committed event (the insert waited for it to commit): compare the bodies. */
export async function replay(tx: Transaction, orgId: string, dedupKey: string, digest: string): Promise<IngestResult> {
  const original = await sourceEvents.findByDedupKey(tx, orgId, dedupKey);
  if (!original) throw new Error(`dedup key ${dedupKey} of org ${orgId} is taken but its event is not visible`);
  if (original.body_digest !== digest) return { kind: 'conflict', dedupKey };
  const { source_event_id, domain_event_id, deal_id } = original;
  return { kind: 'replayed', ids: { source_event_id, domain_event_id, deal_id } };
}

export async function lockDeal(tx: Transaction, orgId: string, externalId: string): Promise<DealRecord> {
  const deal = await deals.lockByExternalId(tx, orgId, externalId);
  if (!deal) throw new Error(`deal ${externalId} of org ${orgId} was neither created nor found`);
  return deal;
}

/**
 * Where a run of events that may be applied together ends: from `start`, at most `limit` events, none naming a deal
 * or a dedup key an earlier one of the run names.
 */
export function endOfRun(
  requests: readonly IngestRequest[],
  dedupKeys: readonly string[],
  start: number,
  limit: number,
): number {
  const dealIds = new Set<string>();
  const keys = new Set<string>();
  let end = start;
  while (end < requests.length && end - start < limit) {
    const externalId = (requests[end] as IngestRequest).event.externalId;
    const key = dedupKeys[end] as string;
    if (dealIds.has(externalId) || keys.has(key)) break;
    dealIds.add(externalId);
    keys.add(key);
    end++;
  }
  return end;
}

/** What the deals repository writes for an event that moves its deal: one shape for the single and the bulk path. */
export function appliedEventOf(
  event: DealEvent,
  transition: Extract<Transition, { stale: false }>,
  ids: { domainEventId: string; sourceEventId: string },
  splits: StoredSplit[] | null,
  userId: string | null,
): AppliedEvent {
  return {
    ...ids,
    type: transition.type,
    eventTypeHint: event.eventType,
    changes: transition.changes,
    occurredAt: event.occurredAt ?? null,
    state: transition.state,
    splits,
    currency: transition.currency,
    status: transition.status,
    userId,
    lastOccurredAt: transition.lastOccurredAt,
    becameWon: transition.becameWon,
  };
}

export function currentOf(deal: DealRecord): CurrentDeal {
  return {
    state: deal.state,
    status: deal.status,
    lastOccurredAt: deal.last_occurred_at,
    splits: deal.splits,
    currency: deal.currency,
  };
}

/** The event's dedup key: the one it carries, else one generated for it. */
export function dedupKeyOf(request: IngestRequest): string {
  return request.event.dedupKey ?? generatedDedupKey(request.event.externalId, request.receivedAt);
}

/** `gen_<external_id>_<received time>_<128 random bits>`: unique without coordination, readable in a log. */
export function generatedDedupKey(externalId: string, receivedAt: Date): string {
  return `gen_${externalId}_${receivedAt.toISOString()}_${randomBytes(16).toString('hex')}`;
}
