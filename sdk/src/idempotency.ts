import type { Middleware } from 'openapi-fetch';

/** A key unique to one logical call; `dedup_key` allows 1 to 255 characters. */
export function generateDedupKey(): string {
  return `sdk-${crypto.randomUUID()}`;
}

/**
 * Fills `dedup_key` in a POST /v1/deals/events body that has none, and in each event of a POST
 * /v1/deals/events/batch body that has none. The server deduplicates on it, so the retries below (which
 * resend the same bytes) can never record an event twice; without it the server would generate a new key
 * per attempt. A middleware runs once per call, before the retrying fetch, so one logical call keeps one
 * key per event. It covers the raw client as well as `deals.ingestEvent` and `deals.ingestEvents`.
 */
export const dedupKeyMiddleware: Middleware = {
  async onRequest({ request, schemaPath }) {
    if (request.method !== 'POST') return undefined;
    if (schemaPath !== '/v1/deals/events' && schemaPath !== '/v1/deals/events/batch') return undefined;
    let body: unknown;
    try {
      body = JSON.parse(await request.clone().text());
    } catch {
      return undefined; // not JSON: the server answers 400 invalid_json, which is never retried
    }
    if (schemaPath === '/v1/deals/events') {
      if (!needsDedupKey(body)) return undefined;
      return new Request(request, { body: JSON.stringify(withDedupKey(body)) });
    }
    const events = isObject(body) ? body.events : undefined;
    if (!Array.isArray(events) || !events.some(needsDedupKey)) return undefined;
    const filled = events.map((event) => (needsDedupKey(event) ? withDedupKey(event) : event));
    return new Request(request, { body: JSON.stringify({ ...(body as object), events: filled }) });
  },
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function needsDedupKey(event: unknown): event is Record<string, unknown> {
  return isObject(event) && !('dedup_key' in event);
}

function withDedupKey(event: Record<string, unknown>): Record<string, unknown> {
  return { ...event, dedup_key: generateDedupKey() };
}
