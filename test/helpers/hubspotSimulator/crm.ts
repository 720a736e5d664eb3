import type { IncomingMessage, ServerResponse } from 'node:http';
import { hubspotError, json, type Portal, type SimulatedDeal } from './portal.ts';

// The simulated portal's CRM API: the objects API for deals (`GET /crm/v3/objects/deals` paged with `after`,
// `POST /crm/v3/objects/deals/batch/read`, `POST /crm/v3/objects/deals/search`), the pipelines API
// (`/crm/v3/pipelines/deals`) and the owners API (`/crm/v3/owners`), each behind a bearer token of the portal's,
// unexpired. Every answer carries the daily limit's headers (`X-HubSpot-RateLimit-Daily`,
// `X-HubSpot-RateLimit-Daily-Remaining`), as HubSpot's do for OAuth apps' calls; a 429 its `Retry-After`.

const dealView = (deal: SimulatedDeal, properties: string[]) => ({
  id: deal.id,
  properties: Object.fromEntries(
    [...new Set(['hs_object_id', 'createdate', 'hs_lastmodifieddate', ...properties])].map((name) => [
      name,
      name === 'hs_object_id' ? deal.id : (deal.properties[name] ?? null),
    ]),
  ),
  createdAt: deal.createdAt,
  updatedAt: deal.updatedAt,
  archived: deal.archived,
  ...(deal.archived ? { archivedAt: deal.updatedAt } : {}),
});

/** Answers a CRM API request (404 for a path HubSpot would not route). */
export function answerCrm(portal: Portal, req: IncomingMessage, url: URL, body: string, res: ServerResponse) {
  // The CRM API: a bearer token of the portal's, unexpired.
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  portal.bearers.push(bearer ?? '');
  portal.dailyRemaining = Math.max(0, portal.dailyRemaining - 1);
  res.setHeader('X-HubSpot-RateLimit-Daily', String(portal.dailyLimit));
  res.setHeader('X-HubSpot-RateLimit-Daily-Remaining', String(portal.dailyRemaining));
  const failure = portal.failures.shift();
  if (failure) return hubspotError(res, failure.status, failure.message, failure.category, failure.retryAfter);
  const token = portal.tokens.find((candidate) => candidate.access === bearer);
  if (!token) {
    return hubspotError(
      res,
      401,
      'Authentication credentials not found. This API supports OAuth 2.0 authentication.',
      'INVALID_AUTHENTICATION',
    );
  }
  if (token.expiresAt <= Date.now()) {
    return hubspotError(res, 401, 'The OAuth token used to make this call expired.', 'EXPIRED_AUTHENTICATION');
  }
  // Listed comma-separated or as the parameter repeated (as the client library sends an array): HubSpot takes both.
  const properties = url.searchParams
    .getAll('properties')
    .flatMap((value) => value.split(','))
    .filter(Boolean);
  if (req.method === 'GET' && url.pathname === '/crm/v3/objects/deals') {
    const archived = url.searchParams.get('archived') === 'true';
    const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 10));
    const after = url.searchParams.get('after');
    const all = [...portal.deals.values()]
      .filter((deal) => deal.archived === archived)
      .sort((a, b) => Number(a.id) - Number(b.id));
    const start = after === null ? 0 : all.findIndex((deal) => Number(deal.id) > Number(after));
    const page = start < 0 ? [] : all.slice(start, start + limit);
    const last = page.at(-1);
    const more = last !== undefined && start + limit < all.length;
    return json(res, 200, {
      results: page.map((deal) => dealView(deal, properties)),
      ...(more
        ? {
            paging: {
              next: { after: last.id, link: `${portal.url}/crm/v3/objects/deals?after=${last.id}` },
            },
          }
        : {}),
    });
  }
  if (req.method === 'POST' && url.pathname === '/crm/v3/objects/deals/batch/read') {
    const request = JSON.parse(body) as { inputs: Array<{ id: string }>; properties?: string[] };
    const archived = url.searchParams.get('archived') === 'true';
    const found = request.inputs
      .map((input) => portal.deals.get(input.id))
      .filter((deal): deal is SimulatedDeal => deal !== undefined && deal.archived === archived);
    const missing = request.inputs.filter((input) => !found.some((deal) => deal.id === input.id));
    const now = new Date().toISOString();
    return json(res, missing.length > 0 ? 207 : 200, {
      status: 'COMPLETE',
      results: found.map((deal) => dealView(deal, request.properties ?? [])),
      startedAt: now,
      completedAt: now,
      ...(missing.length > 0
        ? {
            numErrors: 1,
            errors: [
              {
                status: 'error',
                category: 'OBJECT_NOT_FOUND',
                message: 'Could not get some DEAL objects, they may be deleted or not exist.',
                context: { ids: missing.map((input) => input.id) },
              },
            ],
          }
        : {}),
    });
  }
  if (req.method === 'POST' && url.pathname === '/crm/v3/objects/deals/search') {
    return answerSearch(portal, body, res);
  }
  if (req.method === 'GET' && url.pathname === '/crm/v3/pipelines/deals') {
    const now = new Date().toISOString();
    return json(res, 200, {
      results: portal.pipelines.map((pipeline, order) => ({
        id: pipeline.id,
        label: pipeline.label,
        displayOrder: order,
        archived: false,
        createdAt: now,
        updatedAt: now,
        stages: pipeline.stages.map((stage, stageOrder) => ({
          id: stage.id,
          label: stage.label,
          displayOrder: stageOrder,
          archived: false,
          createdAt: now,
          updatedAt: now,
          writePermissions: 'CRM_PERMISSIONS_ENFORCEMENT',
          metadata: { isClosed: String(stage.isClosed), probability: stage.probability.toFixed(1) },
        })),
      })),
    });
  }
  if (req.method === 'GET' && url.pathname === '/crm/v3/owners') {
    const now = new Date().toISOString();
    return json(res, 200, {
      results: portal.owners.map((owner, index) => ({
        id: owner.id,
        email: owner.email,
        type: 'PERSON',
        firstName: owner.firstName ?? '',
        lastName: owner.lastName ?? '',
        userId: 100 + index,
        createdAt: now,
        updatedAt: now,
        archived: false,
      })),
    });
  }
  return hubspotError(res, 404, `Unable to route ${req.method} ${url.pathname}`, 'OBJECT_NOT_FOUND');
}

interface SearchFilter {
  propertyName: string;
  operator: string;
  value?: string;
}

/** A filter as HubSpot's search applies it: dates compared as epoch milliseconds, other values as text. */
function matches(deal: SimulatedDeal, filter: SearchFilter): boolean {
  const raw = filter.propertyName === 'hs_object_id' ? deal.id : deal.properties[filter.propertyName];
  if (filter.operator === 'HAS_PROPERTY') return raw !== null && raw !== undefined;
  if (filter.operator === 'NOT_HAS_PROPERTY') return raw === null || raw === undefined;
  if (raw === null || raw === undefined || filter.value === undefined) return false;
  const asDate = (value: string) => (/^\d+$/.test(value) ? Number(value) : Date.parse(value));
  const dated = ['hs_lastmodifieddate', 'createdate', 'closedate'].includes(filter.propertyName);
  const [left, right] = dated ? [asDate(raw), asDate(filter.value)] : [raw, filter.value];
  switch (filter.operator) {
    case 'EQ':
      return left === right;
    case 'NEQ':
      return left !== right;
    case 'GT':
      return left > right;
    case 'GTE':
      return left >= right;
    case 'LT':
      return left < right;
    case 'LTE':
      return left <= right;
    default:
      return false;
  }
}

/**
 * `POST /crm/v3/objects/deals/search` as HubSpot's reference describes it: `filterGroups` (ORed, each's `filters`
 * ANDed), `sorts` (a property name, or `{propertyName, direction}`), `properties`, `limit` (at most 200) and `after`
 * (an offset); live deals only; `total` and `paging.next.after`; past 10,000 results a 400.
 */
function answerSearch(portal: Portal, body: string, res: ServerResponse) {
  const request = JSON.parse(body) as {
    filterGroups?: Array<{ filters?: SearchFilter[] }>;
    sorts?: Array<string | { propertyName: string; direction?: string }>;
    properties?: string[];
    limit?: number;
    after?: string;
  };
  portal.searches.push(request);
  const limit = Math.min(200, request.limit ?? 10);
  const offset = Number(request.after ?? 0);
  if (offset + limit > 10_000) {
    return hubspotError(res, 400, 'Search results are limited to 10,000 records.', 'VALIDATION_ERROR');
  }
  const groups = request.filterGroups ?? [];
  const found = [...portal.deals.values()].filter(
    (deal) =>
      !deal.archived &&
      (groups.length === 0 || groups.some((group) => (group.filters ?? []).every((filter) => matches(deal, filter)))),
  );
  const sort = request.sorts?.[0];
  const sortBy = typeof sort === 'string' ? sort : sort?.propertyName;
  const descending = typeof sort === 'object' && sort.direction === 'DESCENDING';
  const key = (deal: SimulatedDeal) =>
    sortBy === undefined || sortBy === 'hs_object_id' ? Number(deal.id) : Date.parse(deal.properties[sortBy] ?? '');
  found.sort((a, b) => (key(a) - key(b)) * (descending ? -1 : 1) || Number(a.id) - Number(b.id));
  const page = found.slice(offset, offset + limit);
  const more = offset + limit < found.length;
  return json(res, 200, {
    total: found.length,
    results: page.map((deal) => dealView(deal, request.properties ?? [])),
    ...(more ? { paging: { next: { after: String(offset + limit) } } } : {}),
  });
}
