import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { QuotientClient } from '../../sdk/src/index.ts';
import { loadAdminContract, loadContract } from '../../src/http/contract.ts';
import type { AdminClient } from '../helpers/adminClient.ts';
import { test } from '../helpers/fixtures.ts';
import { sdkClient } from '../helpers/sdk.ts';

// The cursors the contracts show (every `next_cursor` of a response example, every example of a `cursor`
// parameter) are cursors the server accepts: each is sent to the list it documents, by an org of its own.

type Json = Record<string, unknown>;

interface CursorExample {
  operationId: string;
  cursor: string;
}

function resolve(contract: Json, value: unknown): unknown {
  const ref = (value as { $ref?: unknown } | null)?.$ref;
  if (typeof ref !== 'string') return value;
  const target = ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, segment) => (node as Json)[segment.replaceAll('~1', '/').replaceAll('~0', '~')], contract);
  return resolve(contract, target);
}

/** Every string under a `next_cursor` member, at any depth of an example value. */
function nextCursorsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(nextCursorsIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([name, member]) =>
    name === 'next_cursor' && typeof member === 'string' ? [member] : nextCursorsIn(member),
  );
}

function exampleValues(contract: Json, holder: Json): unknown[] {
  const named = Object.values((holder.examples ?? {}) as Json).map(
    (example) => (resolve(contract, example) as Json).value,
  );
  return 'example' in holder ? [holder.example, ...named] : named;
}

function cursorExamples(contract: Json): CursorExample[] {
  const found: CursorExample[] = [];
  for (const pathItem of Object.values(contract.paths as Json)) {
    for (const operation of Object.values(pathItem as Json) as Json[]) {
      const operationId = operation.operationId;
      if (typeof operationId !== 'string') continue;
      for (const parameter of ((operation.parameters ?? []) as unknown[]).map((p) => resolve(contract, p) as Json)) {
        if (parameter.name !== 'cursor' || parameter.in !== 'query') continue;
        for (const value of [
          ...exampleValues(contract, parameter),
          ...exampleValues(contract, parameter.schema as Json),
        ]) {
          if (typeof value === 'string') found.push({ operationId, cursor: value });
        }
      }
      for (const response of Object.values((operation.responses ?? {}) as Json)) {
        for (const media of Object.values(((resolve(contract, response) as Json).content ?? {}) as Json)) {
          for (const value of exampleValues(contract, media as Json)) {
            for (const cursor of nextCursorsIn(value)) found.push({ operationId, cursor });
          }
        }
      }
    }
  }
  return found;
}

/** Every `next_cursor` of the named examples, used by an operation or not. */
function componentCursors(contract: Json): string[] {
  const examples = ((contract.components as Json | undefined)?.examples ?? {}) as Json;
  return Object.values(examples).flatMap((example) => nextCursorsIn((example as Json).value));
}

const PUBLIC_EXAMPLES = cursorExamples(loadContract());
const ADMIN_EXAMPLES = cursorExamples(loadAdminContract());

/** How to call each public list with a cursor, as a client with a fresh org and key would. */
const PUBLIC_LISTS: Record<string, (client: QuotientClient, cursor: string) => Promise<number>> = {
  listDeals: async (client, cursor) =>
    (await client.raw.GET('/v1/deals', { params: { query: { cursor } } })).response.status,
  listEarnings: async (client, cursor) =>
    (await client.raw.GET('/v1/earnings', { params: { query: { cursor } } })).response.status,
  listUsers: async (client, cursor) =>
    (await client.raw.GET('/v1/users', { params: { query: { cursor } } })).response.status,
};

/** How to call each admin list with a cursor, as an admin signed in to a fresh org would. */
const ADMIN_LISTS: Record<string, (client: AdminClient, cursor: string) => Promise<number>> = {
  listAuditEntries: async (client, cursor) =>
    (await client.api.GET('/admin/v1/audit-entries', { params: { query: { cursor } } })).response.status,
};

describe('the cursor examples of the contracts', () => {
  test('the public and the admin contract each show at least one cursor, and every named example is found', () => {
    assert.ok(PUBLIC_EXAMPLES.length > 0);
    assert.ok(ADMIN_EXAMPLES.length > 0);
    for (const [contract, found] of [
      [loadContract(), PUBLIC_EXAMPLES],
      [loadAdminContract(), ADMIN_EXAMPLES],
    ] as const) {
      for (const cursor of componentCursors(contract)) {
        assert.ok(
          found.some((example) => example.cursor === cursor),
          `${cursor} is not an example of a list`,
        );
      }
    }
  });

  test.for(PUBLIC_EXAMPLES)(
    '$operationId accepts its example cursor $cursor',
    async ({ operationId, cursor }, { server, rawKey }) => {
      const call = PUBLIC_LISTS[operationId];
      assert.ok(call, `no call for ${operationId}: add one to PUBLIC_LISTS`);
      assert.equal(await call(sdkClient(server, rawKey, { maxRetries: 0 }), cursor), 200);
    },
  );

  test.for(ADMIN_EXAMPLES)(
    '$operationId (admin) accepts its example cursor $cursor',
    async ({ operationId, cursor }, { signedIn }) => {
      const call = ADMIN_LISTS[operationId];
      assert.ok(call, `no call for ${operationId}: add one to ADMIN_LISTS`);
      assert.equal(await call((await signedIn()).client, cursor), 200);
    },
  );
});
