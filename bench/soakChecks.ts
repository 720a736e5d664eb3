import type { ThrowawayCluster } from '../test/faults/cluster.ts';
import type { WebhookReceiver } from '../test/helpers/webhookReceiver.ts';
import { type Accepted, type Limited, SERVERS, type World } from './soakLoad.ts';

// The soak's checks (bench/soak.ts): its invariants, each from what the run recorded and what the database and the
// webhook receiver hold at its end.

export interface SoakCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface SoakReport {
  ok: boolean;
  checks: SoakCheck[];
  figures: {
    requests: Record<string, number>;
    rateLimit: number;
    eventsAccepted: number;
    webhooksDelivered: number;
    rateLimitWindows: Array<{
      key: string;
      window: number;
      accepted: number;
      refused: number;
      /** 503s: a request the database could not serve may or may not have been counted. */
      unavailable: number;
      byServer: number[];
    }>;
    rssMegabytes: Record<string, number[]>;
  };
}

export function rateLimitWindows(limited: readonly Limited[]): SoakReport['figures']['rateLimitWindows'] {
  const windows = new Map<string, SoakReport['figures']['rateLimitWindows'][number]>();
  for (const request of limited) {
    if (request.window === null) continue;
    const id = `${request.key}:${request.window}`;
    const entry = windows.get(id) ?? {
      key: `limited-${request.key}`,
      window: request.window,
      accepted: 0,
      refused: 0,
      unavailable: 0,
      byServer: Array.from({ length: SERVERS }, () => 0),
    };
    if (request.status === 429) entry.refused++;
    else if (request.status === 503) entry.unavailable++;
    else if (request.status === 200) {
      entry.accepted++;
      entry.byServer[request.server] = (entry.byServer[request.server] ?? 0) + 1;
    }
    windows.set(id, entry);
  }
  return [...windows.values()].sort((a, b) => a.key.localeCompare(b.key) || a.window - b.window);
}

export async function checkRateLimits(limited: readonly Limited[], rateLimit: number): Promise<SoakCheck[]> {
  const odd = limited.filter(
    (request) =>
      (request.status !== 200 && request.status !== 429 && request.status !== 503) || request.window === null,
  );
  const windows = rateLimitWindows(limited);
  // Exact: never more than N accepted, and exactly N in a window that refused any. A 503 (the database did not
  // answer in time) may have been counted before it failed: a window with u of them accepts between N - u and N.
  const wrong = windows.filter(
    (window) => window.accepted > rateLimit || (window.refused > 0 && window.accepted < rateLimit - window.unavailable),
  );
  const unavailable = windows.reduce((sum, window) => sum + window.unavailable, 0);
  const full = windows.filter((window) => window.refused > 0);
  return [
    {
      name: 'rate limits exact across processes',
      ok: odd.length === 0 && wrong.length === 0 && full.length > 0,
      detail:
        `${full.length} windows over the limit, each exactly ${rateLimit} accepted over ${SERVERS} servers` +
        (unavailable > 0 ? ` (${unavailable} answers 503: exact within them)` : '') +
        (wrong.length > 0 ? `; WRONG: ${JSON.stringify(wrong)}` : '') +
        (odd.length > 0 ? `; ${odd.length} answers neither 200 nor 429 (with X-RateLimit-Reset) nor 503` : '') +
        (full.length === 0 ? '; no window went over the limit' : ''),
    },
  ];
}

export async function checkWebhooks(
  cluster: ThrowawayCluster,
  world: World,
  receiver: WebhookReceiver,
  unverified: number,
): Promise<SoakCheck> {
  const received = new Map<string, number>();
  for (const request of receiver.received) {
    const id = String(request.headers['webhook-id']);
    received.set(id, (received.get(id) ?? 0) + 1);
  }
  const deliveries = await cluster.query<{ message_id: string; status: string }>(
    'SELECT message_id, status FROM webhook_deliveries WHERE org_id = $1 AND endpoint_id = $2',
    [world.orgId, world.endpointId],
  );
  const [orphans] = await cluster.query<{ count: string }>(
    `SELECT count(*) AS count FROM webhook_messages m WHERE m.org_id = $1 AND NOT EXISTS
       (SELECT 1 FROM webhook_deliveries d WHERE d.org_id = m.org_id AND d.message_id = m.id AND d.endpoint_id = $2)`,
    [world.orgId, world.endpointId],
  );
  const expected = new Set(deliveries.map((delivery) => delivery.message_id));
  const duplicates = [...received].filter(([, count]) => count > 1).length;
  const lost = [...expected].filter((id) => !received.has(id)).length;
  const unknown = [...received.keys()].filter((id) => !expected.has(id)).length;
  const notDelivered = deliveries.filter((delivery) => delivery.status !== 'delivered').length;
  const ok =
    duplicates === 0 &&
    lost === 0 &&
    unknown === 0 &&
    notDelivered === 0 &&
    unverified === 0 &&
    !Number(orphans?.count);
  return {
    name: 'every webhook delivered once',
    ok: ok && expected.size > 0,
    detail: `${expected.size} messages, ${received.size} received; duplicates ${duplicates}, lost ${lost}, unknown ${unknown}, not delivered ${notDelivered}, bad signatures ${unverified}, messages without a delivery ${Number(orphans?.count)}`,
  };
}

export async function checkEvents(
  cluster: ThrowawayCluster,
  orgId: string,
  accepted: readonly Accepted[],
): Promise<SoakCheck> {
  const sources = await cluster.query<{ dedup_key: string; id: string }>(
    'SELECT dedup_key, id FROM source_events WHERE org_id = $1 AND dedup_key = ANY($2::text[])',
    [orgId, accepted.map((event) => event.dedupKey)],
  );
  const sourceOf = new Map(sources.map((row) => [row.dedup_key, row.id]));
  const domains = await cluster.query<{ id: string; source_event_id: string; deal_id: string }>(
    'SELECT id, source_event_id, deal_id FROM domain_events WHERE org_id = $1 AND source_event_id = ANY($2::text[])',
    [orgId, accepted.map((event) => event.sourceEventId)],
  );
  const domainOf = new Map(domains.map((row) => [row.source_event_id, row]));
  const withEarnings = new Set(
    (
      await cluster.query<{ deal_id: string }>(
        'SELECT DISTINCT deal_id FROM earnings WHERE org_id = $1 AND deal_id = ANY($2::text[])',
        [orgId, [...new Set(accepted.map((event) => event.dealId))]],
      )
    ).map((row) => row.deal_id),
  );
  let noSource = 0;
  let noDomain = 0;
  let noEarnings = 0;
  for (const event of accepted) {
    if (sourceOf.get(event.dedupKey) !== event.sourceEventId) noSource++;
    const domain = domainOf.get(event.sourceEventId);
    if (domain?.id !== event.domainEventId || domain.deal_id !== event.dealId) noDomain++;
    if (!withEarnings.has(event.dealId)) noEarnings++;
  }
  return {
    name: 'no lost event',
    ok: accepted.length > 0 && noSource === 0 && noDomain === 0 && noEarnings === 0,
    detail: `${accepted.length} accepted events over ${new Set(accepted.map((event) => event.dealId)).size} deals; without source event ${noSource}, without domain event ${noDomain}, deal without earnings ${noEarnings}`,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function checkMemory(series: Record<string, number[]>, most: number): SoakCheck[] {
  return Object.entries(series)
    .filter(([name]) => name !== 'worker')
    .map(([name, samples]) => {
      const quarter = Math.floor(samples.length / 4);
      const second = samples.slice(quarter, 2 * quarter);
      const last = samples.slice(samples.length - quarter);
      const ratio = quarter > 0 ? median(last) / median(second) : Number.NaN;
      return {
        name: `memory flat: ${name}`,
        ok: quarter > 0 && ratio <= most,
        detail: `RSS median ${median(second).toFixed(1)} MB in the second quarter, ${median(last).toFixed(1)} MB in the last (${ratio.toFixed(2)}x, at most ${most}x)`,
      };
    });
}
