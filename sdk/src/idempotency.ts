import type { Middleware } from 'openapi-fetch';

/** A key unique to one logical call; `dedup_key` allows 1 to 255 characters. */
export function generateDedupKey(): string {
  return `sdk-${crypto.randomUUID()}`;
}

/**
 * Fills `dedup_key` in a POST /v1/deals/events body that has none. The server deduplicates on it, so
 * the retries below (which resend the same bytes) can never record an event twice; without it the
 * server would generate a new key per attempt. A middleware runs once per call, before the retrying
 * fetch, so one logical call keeps one key. It covers the raw client as well as `deals.ingestEvent`.
 */
export const dedupKeyMiddleware: Middleware = {
  async onRequest({ request, schemaPath }) {
    if (schemaPath !== '/v1/deals/events' || request.method !== 'POST') return undefined;
    let body: unknown;
    try {
      body = JSON.parse(await request.clone().text());
    } catch {
      return undefined; // not JSON: the server answers 400 invalid_json, which is never retried
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body) || 'dedup_key' in body) return undefined;
    return new Request(request, { body: JSON.stringify({ ...body, dedup_key: generateDedupKey() }) });
  },
};
