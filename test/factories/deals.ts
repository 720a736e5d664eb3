import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningServer } from '../../src/main.ts';

// Deal events and the calls that send them, for integration tests. Every test builds its own org and key
// (test/factories/access.ts), so external ids only need to be unique within a test.

let counter = 0;

export interface DealEventBody {
  external_id: string;
  state: Record<string, unknown>;
  event_type?: 'upsert' | 'stage_change' | 'amount_change' | 'delete';
  dedup_key?: string;
  occurred_at?: string;
}

export interface EventIds {
  source_event_id: string;
  domain_event_id: string;
  deal_id: string;
}

export interface WireDeal {
  id: string;
  external_id: string;
  state: {
    amount_cents: number | null;
    stage: string | null;
    close_date: string | null;
    owner_external_id: string | null;
    custom: Record<string, unknown>;
  };
  splits: Array<{ owner_external_id: string; share_bps: number }> | null;
  currency: string;
  status: 'open' | 'won' | 'lost' | 'deleted';
  user_id: string | null;
  version: number;
  last_domain_event_id: string;
  created_at: string;
  updated_at: string;
}

export interface DealPage {
  deals: WireDeal[];
  next_cursor: string | null;
}

/** A unique external id for a test's deal. */
export function externalId(prefix = 'opp'): string {
  return `${prefix}-${process.pid}-${++counter}`;
}

/** A full upsert of a new deal; `overrides` replace members of the event, `state` members of the state. */
export function dealEvent(overrides: Partial<DealEventBody> = {}, state: Record<string, unknown> = {}): DealEventBody {
  return {
    external_id: overrides.external_id ?? externalId(),
    ...overrides,
    state: {
      amount_cents: 5_000_000,
      stage: 'prospecting',
      close_date: '2026-04-20',
      owner_external_id: 'rep-017',
      ...state,
      ...overrides.state,
    },
  };
}

export function postEvent(server: RunningServer, rawKey: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/v1/deals/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * Posts an event that must be accepted (201) and returns its ids. It returns a millisecond later: the deals
 * feed hands out a change once its millisecond has passed (the resolution of updated_at), and tests that list
 * right after ingesting expect to see it.
 */
export async function ingest(server: RunningServer, rawKey: string, body: unknown): Promise<EventIds> {
  const response = await postEvent(server, rawKey, body);
  if (response.status !== 201) {
    throw new Error(`expected 201 for ${JSON.stringify(body)}, got ${response.status}: ${await response.text()}`);
  }
  const ids = (await response.json()) as EventIds;
  await sleep(1);
  return ids;
}

export function getDeals(server: RunningServer, rawKey: string, query: Record<string, string> = {}) {
  const search = new URLSearchParams(query).toString();
  return fetch(`${server.url}/v1/deals${search ? `?${search}` : ''}`, {
    headers: { authorization: `Bearer ${rawKey}` },
  });
}

/** One page that must be answered 200. */
export async function listDeals(
  server: RunningServer,
  rawKey: string,
  query: Record<string, string> = {},
): Promise<DealPage> {
  const response = await getDeals(server, rawKey, query);
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${await response.text()}`);
  return (await response.json()) as DealPage;
}

/** The org's deal with this external id, deleted ones included; undefined when it has none. */
export async function findDeal(server: RunningServer, rawKey: string, external: string): Promise<WireDeal | undefined> {
  const page = await listDeals(server, rawKey, { external_id: external, include_deleted: 'true' });
  return page.deals[0];
}
