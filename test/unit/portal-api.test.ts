import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { createPortalApi, portalTokens, SignedOut } from '../../portal/src/api.ts';
import { normalizeOrigin } from '../../src/access/repTokens.ts';
import { repHierarchyOf, reportsOn } from '../../src/domain/earnings/hierarchy.ts';
import { canSeeUser, orgViewer, visibleUserIdsOf } from '../../src/domain/viewer.ts';
import { OperationTable } from '../../src/http/operations.ts';

// The portal's /v1 client (portal/src/api.ts) against a fake server, and the pure rules of the rep principal.

function tokenServer(lifetimeMs: number, now: () => number) {
  let minted = 0;
  const seen: string[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(new URL(String(input), 'http://portal.test'), init);
    if (new URL(request.url).pathname === '/portal/token') {
      minted += 1;
      return Response.json(
        {
          id: `rtk_${minted}`,
          token: `qrt_${minted}`,
          user_id: 'user_1',
          expires_at: new Date(now() + lifetimeMs).toISOString(),
        },
        { status: 201 },
      );
    }
    const auth = request.headers.get('authorization') ?? '';
    seen.push(auth);
    return auth === `Bearer qrt_${minted}`
      ? Response.json({ ok: true })
      : Response.json({ error: 'invalid_key' }, { status: 401 });
  }) as typeof fetch;
  return { fetchImpl, minted: () => minted, seen };
}

describe('the portal client', () => {
  test('fetches a token once, reuses it, and fetches a new one a minute before it expires', async () => {
    let clock = Date.parse('2026-05-01T09:00:00Z');
    const server = tokenServer(15 * 60_000, () => clock);
    const tokens = portalTokens(server.fetchImpl, () => clock);
    const [first, second] = await Promise.all([tokens.token(), tokens.token()]);
    assert.equal(first, 'qrt_1');
    assert.equal(second, 'qrt_1');
    assert.equal(server.minted(), 1, 'concurrent callers share one mint');
    clock += 13 * 60_000;
    assert.equal(await tokens.token(), 'qrt_1');
    clock += 61_000;
    assert.equal(await tokens.token(), 'qrt_2');
  });

  test('sends the bearer token on /v1 and retries a GET once with a new token after a 401', async () => {
    const clock = Date.parse('2026-05-01T09:00:00Z');
    const server = tokenServer(15 * 60_000, () => clock);
    const tokens = portalTokens(server.fetchImpl, () => clock);
    const api = createPortalApi({ baseUrl: 'http://portal.test', tokens, fetch: server.fetchImpl });
    const ok = await api.GET('/v1/');
    assert.equal(ok.response.status, 200);
    assert.deepEqual(server.seen, ['Bearer qrt_1']);
    await tokens.token();
    // The server revoked the token (a new one is minted meanwhile, as after a sign-in elsewhere).
    await server.fetchImpl('/portal/token', { method: 'POST' });
    const retried = await api.GET('/v1/');
    assert.equal(retried.response.status, 200);
    assert.deepEqual(server.seen.slice(1), ['Bearer qrt_1', 'Bearer qrt_3']);
  });

  test('a 401 from /portal/token means signed out', async () => {
    const tokens = portalTokens((async () =>
      Response.json({ error: 'unauthenticated' }, { status: 401 })) as typeof fetch);
    await assert.rejects(tokens.token(), SignedOut);
  });
});

describe('the rep principal rules', () => {
  test('reports are found transitively on the day, not before a manager starts', () => {
    const hierarchy = repHierarchyOf([
      { rep_external_id: 'c', manager_external_id: 'a', from: '2026-01-01' },
      { rep_external_id: 'd', manager_external_id: 'c', from: '2026-03-01' },
      { rep_external_id: 'b', manager_external_id: 'a', from: '2026-01-01' },
      { rep_external_id: 'b', manager_external_id: null, from: '2026-02-01' },
    ]);
    assert.deepEqual([...reportsOn(hierarchy, 'a', '2026-01-15')].sort(), ['b', 'c']);
    assert.deepEqual([...reportsOn(hierarchy, 'a', '2026-04-01')].sort(), ['c', 'd']);
    assert.deepEqual([...reportsOn(hierarchy, 'd', '2026-04-01')], []);
  });

  test('an org viewer sees everyone; a rep viewer their visible ids only', () => {
    assert.equal(visibleUserIdsOf(orgViewer('org_1')), null);
    const rep = { kind: 'rep', orgId: 'org_1', userId: 'u1', tokenId: 't', visibleUserIds: ['u1', 'u2'] } as const;
    assert.equal(canSeeUser(rep, 'u2'), true);
    assert.equal(canSeeUser(rep, 'u3'), false);
    assert.equal(canSeeUser(rep, null), false);
  });

  test('an operation marked x-quotient-rep-action is one a rep may call; others are not', () => {
    const table = new OperationTable({
      security: [{ ApiKey: [] }],
      paths: {
        '/v1/approve': {
          post: { operationId: 'approve', security: [{ ApiKey: ['deals:write'] }], 'x-quotient-rep-action': true },
        },
        '/v1/other': { post: { operationId: 'other', security: [{ ApiKey: ['deals:write'] }] } },
      },
    } as ConstructorParameters<typeof OperationTable>[0]);
    assert.deepEqual(
      table.all().map((operation) => [operation.operationId, operation.repAction]),
      [
        ['approve', true],
        ['other', false],
      ],
    );
  });

  test('origins are normalised or refused', () => {
    assert.equal(normalizeOrigin('https://Intranet.Example/'), 'https://intranet.example');
    assert.equal(normalizeOrigin('http://localhost:5173'), 'http://localhost:5173');
    for (const bad of ['intranet.example', 'https://x.example/app', 'ftp://x.example', 'https://u:p@x.example', '*']) {
      assert.equal(normalizeOrigin(bad), null, bad);
    }
  });
});
