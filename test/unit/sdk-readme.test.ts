import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'vitest';
import { createClient } from '../../sdk/src/index.ts';

// sdk/README.md's method table follows the contract and the SDK: each operation of the public contract has one row
// giving its endpoint, the scope the contract asks for, and the SDK methods that call it; every method a row names
// exists on a client; every method of the client's resources is in the table.

interface Operation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
}

interface Contract {
  security: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, Operation>>;
}

interface Row {
  calls: string[];
  endpoint: string;
  scope: string;
}

const ROOT = new URL('../../', import.meta.url);
const CONTRACT = JSON.parse(readFileSync(new URL('generated/openapi.json', ROOT), 'utf8')) as Contract;
const README = readFileSync(new URL('sdk/README.md', ROOT), 'utf8');
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

const operations = Object.entries(CONTRACT.paths).flatMap(([path, item]) =>
  HTTP_METHODS.filter((method) => item[method]).map((method) => ({
    endpoint: `${method.toUpperCase()} ${path}`,
    operation: item[method] as Operation,
  })),
);

function methodTable(): Row[] {
  const lines = README.split('\n');
  const header = lines.indexOf('| Method | Endpoint | Scope |');
  assert.notEqual(header, -1, 'sdk/README.md has a "| Method | Endpoint | Scope |" table');
  const rows: Row[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [calls = '', endpoint = '', scope = ''] = line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim());
    rows.push({
      calls: [...calls.matchAll(/`([a-z][A-Za-z]*\.[A-Za-z]+)\(/g)].map((match) => match[1] as string),
      endpoint: endpoint.replace(/^`|`$/g, ''),
      scope,
    });
  }
  return rows;
}

/** The Scope cell for an operation: `none` without authentication, `any key` for a key of any scope. */
function scopeCell(operation: Operation): string {
  const [requirement] = operation.security ?? CONTRACT.security;
  if (requirement === undefined) return 'none';
  const scopes = Object.values(requirement).flat();
  return scopes.length === 0 ? 'any key' : scopes.map((scope) => `\`${scope}\``).join(', ');
}

const client = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'qtn_readme' });
const table = methodTable();

describe("the SDK README's method table", () => {
  test('has one row per operation of the contract, with its scope, and no row for anything else', () => {
    assert.ok(operations.length > 10);
    for (const { endpoint, operation } of operations) {
      const rows = table.filter((row) => row.endpoint === endpoint);
      assert.equal(rows.length, 1, `${operation.operationId} (${endpoint}) has one row in sdk/README.md`);
      assert.ok((rows[0] as Row).calls.length > 0, `the row of ${endpoint} names the SDK method that calls it`);
      assert.equal((rows[0] as Row).scope, scopeCell(operation), `the scope of ${endpoint}`);
    }
    const endpoints = new Set(operations.map(({ endpoint }) => endpoint));
    for (const row of table) assert.ok(endpoints.has(row.endpoint), `${row.endpoint} is an operation of the contract`);
  });

  test('names methods the client has', () => {
    for (const call of table.flatMap((row) => row.calls)) {
      const [resource = '', method = ''] = call.split('.');
      const target = (client as unknown as Record<string, Record<string, unknown>>)[resource];
      assert.equal(typeof target?.[method], 'function', `client.${call} is a method of the SDK`);
    }
  });

  test("lists every method of the client's resources", () => {
    const listed = new Set(table.flatMap((row) => row.calls));
    const resources = Object.entries(client).filter(([name]) => name !== 'raw');
    assert.ok(resources.length > 5);
    for (const [name, resource] of resources) {
      const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(resource)).filter(
        (key) => key !== 'constructor',
      );
      for (const method of methods) assert.ok(listed.has(`${name}.${method}`), `${name}.${method} is in the table`);
    }
  });
});
