import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

// The simulated portal's state, shared by the OAuth server, the CRM API and the webhooks, and HubSpot's answers.

export interface SimulatedDeal {
  id: string;
  properties: Record<string, string | null>;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface SimulatedStage {
  id: string;
  label: string;
  isClosed: boolean;
  probability: number;
}

export interface SimulatedOwner {
  id: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

export interface WebhookEvent {
  objectId: number;
  subscriptionType: 'deal.creation' | 'deal.propertyChange' | 'deal.deletion' | 'deal.restore' | 'deal.merge';
  propertyName?: string;
  propertyValue?: string;
  occurredAt: number;
  /** `deal.merge`: the deal that wins, the deals merged into it, and the deal the merge created (if it did). */
  primaryObjectId?: number;
  mergedObjectIds?: number[];
  newObjectId?: number;
  numberOfPropertiesMoved?: number;
}

export interface Token {
  access: string;
  refresh: string;
  expiresAt: number;
}

/** What the simulator's parts share: the portal's data, the OAuth codes and tokens issued, the failures queued. */
export interface Portal {
  url: string;
  portalId: number;
  clientId: string;
  clientSecret: string;
  deals: Map<string, SimulatedDeal>;
  owners: SimulatedOwner[];
  pipelines: Array<{ id: string; label: string; stages: SimulatedStage[] }>;
  tokenLifetimeSeconds: number;
  grants: string[];
  bearers: string[];
  codes: Map<string, { redirectUri: string }>;
  tokens: Token[];
  failures: Array<{ status: number; message: string; category: string; retryAfter?: number }>;
  /** The portal's daily API limit and the calls it has left (`X-HubSpot-RateLimit-Daily[-Remaining]`). */
  dailyLimit: number;
  dailyRemaining: number;
  /** Every search request's body, in order. */
  searches: unknown[];
}

export const DEFAULT_PIPELINES = [
  {
    id: 'default',
    label: 'Sales Pipeline',
    stages: [
      { id: 'appointmentscheduled', label: 'Appointment Scheduled', isClosed: false, probability: 0.2 },
      { id: 'contractsent', label: 'Contract Sent', isClosed: false, probability: 0.8 },
      { id: 'closedwon', label: 'Closed Won', isClosed: true, probability: 1 },
      { id: 'closedlost', label: 'Closed Lost', isClosed: true, probability: 0 },
    ],
  },
  {
    id: '7654321',
    label: 'Renewals',
    stages: [
      { id: '1100001', label: 'Renewal Due', isClosed: false, probability: 0.5 },
      { id: '1100002', label: 'Renewed', isClosed: true, probability: 1 },
      { id: '1100003', label: 'Churned', isClosed: true, probability: 0 },
    ],
  },
];

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json;charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** HubSpot's error body (a 429 with its `Retry-After`, in seconds, when given). */
export function hubspotError(
  res: ServerResponse,
  status: number,
  message: string,
  category: string,
  retryAfter?: number,
): void {
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  json(res, status, { status: 'error', message, correlationId: randomBytes(8).toString('hex'), category });
}
