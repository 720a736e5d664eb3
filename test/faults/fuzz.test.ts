import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { ERROR_STATUS } from '../../src/http/errors.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { test } from '../helpers/fixtures.ts';

// A fuzzer driven by the contract the server serves: for every operation it builds requests from the
// parameter and body schemas, mostly valid and often hostile (NUL, leap seconds, lone surrogates, huge numbers,
// prototype names, wrong types, broken encodings and bodies), at least 10,000 per run. It fails on any 5xx, on
// any error body that is not the error format, and on any row written by a refused request. Seeded: the seed
// is printed, and QUOTIENT_FUZZ_SEED=<seed> replays the same requests.

const REQUESTS = Number(process.env.QUOTIENT_FUZZ_REQUESTS ?? 10_000);
const CONCURRENCY = 24;
const SEED = Number(process.env.QUOTIENT_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

type Json = null | boolean | number | string | Json[] | { [name: string]: Json };
type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: Json[];
  const?: Json;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  examples?: Json[];
  example?: Json;
};
type Parameter = { $ref?: string; name: string; in: string; required?: boolean; schema?: Schema };
type Operation = { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> } };
type Contract = { paths: Record<string, Record<string, Operation>> } & Record<string, unknown>;

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
  };
}
type Random = ReturnType<typeof generator>;

const HOSTILE_TEXT = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '',
  ' ',
  '2026-06-30T23:59:60Z',
  '2026-02-30',
  '9999-12-31T23:59:59.999Z',
  '0000-01-01T00:00:00Z',
  '__proto__',
  'constructor',
  'prototype',
  "'; DROP TABLE deals; --",
  '%',
  '%00',
  '../../etc/passwd',
  '💥'.repeat(100),
  'x'.repeat(5000),
  'deal_01jd00000000000000000000',
  'earn_7zzzzzzzzzzzzzzzzzzzzzzzzz',
  'plan_00000000000000000000000000',
  '-1',
  '1e309',
  'NaN',
  'null',
  'true',
];
const HOSTILE_VALUES: Json[] = [
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 52,
  2 ** 53 - 1,
  2 ** 53 + 2,
  1e21,
  -(2 ** 53),
  [],
  {},
  JSON.parse('{"__proto__": {"polluted": true}}') as Json,
  [1, 'a', null],
];
const REPS = ['rep-a', 'rep-b', 'rep-c'];

class ContractFuzzer {
  private readonly contract: Contract;
  private readonly random: Random;

  constructor(contract: Contract, random: Random) {
    this.contract = contract;
    this.random = random;
  }

  resolve<T extends { $ref?: string }>(node: T): T {
    let current = node;
    for (let depth = 0; current?.$ref && depth < 20; depth++) {
      const path = current.$ref.replace(/^#\//, '').split('/');
      current = path.reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], this.contract) as T;
    }
    return current;
  }

  /** A value the schema accepts, as well as this simple generator can tell. */
  valid(schemaRef: Schema, depth = 0): Json {
    const schema = this.resolve(schemaRef);
    const r = this.random;
    if (schema.const !== undefined) return schema.const;
    if (schema.enum) return r.pick(schema.enum);
    const alternatives = schema.oneOf ?? schema.anyOf;
    if (alternatives) return this.valid(r.pick(alternatives), depth + 1);
    if (schema.allOf) return this.valid(schema.allOf[0] as Schema, depth + 1);
    const examples = schema.examples ?? (schema.example === undefined ? [] : [schema.example]);
    if (examples.length > 0 && r.chance(0.3)) return r.pick(examples);
    const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'object'];
    const type = r.pick(
      types.filter((candidate) => candidate !== 'null').length > 0 ? types.filter((t) => t !== 'null') : types,
    );
    switch (type) {
      case 'string':
        return this.text(schema);
      case 'integer': {
        const min = schema.minimum ?? 0;
        const max = Math.min(schema.maximum ?? 10_000_000, Number.MAX_SAFE_INTEGER);
        return r.chance(0.1) ? r.pick([min, max]) : r.int(min, Math.min(max, min + 10_000_000));
      }
      case 'number':
        return r.next() * 1000;
      case 'boolean':
        return r.chance(0.5);
      case 'array':
        return depth > 4 ? [] : Array.from({ length: r.int(0, 3) }, () => this.valid(schema.items ?? {}, depth + 1));
      case 'null':
        return null;
      default: {
        const result: Record<string, Json> = {};
        if (depth > 4) return result;
        for (const [name, property] of Object.entries(schema.properties ?? {})) {
          if (schema.required?.includes(name) || r.chance(0.6)) result[name] = this.valid(property, depth + 1);
        }
        return result;
      }
    }
  }

  private text(schema: Schema): string {
    const r = this.random;
    if (schema.format === 'date-time')
      return new Date(Date.UTC(2026, r.int(0, 11), r.int(1, 28), r.int(0, 23))).toISOString();
    if (schema.format === 'date')
      return `2026-${String(r.int(1, 12)).padStart(2, '0')}-${String(r.int(1, 28)).padStart(2, '0')}`;
    const prefix = /^\^([a-z]+)_/.exec(schema.pattern ?? '')?.[1];
    if (prefix)
      return `${prefix}_01${Array.from({ length: 24 }, () => r.pick([...'0123456789abcdefghjkmnpqrstvwxyz'])).join('')}`;
    return r.pick(['closed_won', 'negotiation', 'won', 'lost', 'EMEA', 'rep-a', `t${r.int(0, 999)}`]);
  }

  /** A hostile value of any type, or hostile text. */
  hostile(): Json {
    return this.random.chance(0.6) ? this.random.pick(HOSTILE_TEXT) : this.random.pick(HOSTILE_VALUES);
  }
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** The dedup_keys its events would be stored under, when they have ones we chose (several for a batch). */
  dedupKeys?: string[];
}

function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

function queryValue(value: Json): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function buildRequest(
  fuzzer: ContractFuzzer,
  random: Random,
  contract: Contract,
  rawKey: string,
  index: number,
): FuzzRequest {
  const templates = Object.keys(contract.paths);
  const template = random.pick(templates);
  const item = contract.paths[template] as Record<string, Operation>;
  const methods = Object.keys(item).filter((name) => ['get', 'post', 'put', 'delete', 'patch'].includes(name));
  const declared = random.pick(methods);
  const method = random.chance(0.03) ? random.pick(['PUT', 'DELETE', 'PATCH', 'POST', 'GET']) : declared.toUpperCase();
  const operation = item[declared] as Operation;
  const headers: Record<string, string> = {};
  if (!random.chance(0.02))
    headers.authorization = random.chance(0.02) ? `Bearer qtn_${'0'.repeat(64)}` : `Bearer ${rawKey}`;

  let path = template;
  const query: string[] = [];
  for (const reference of operation.parameters ?? []) {
    const parameter = fuzzer.resolve(reference);
    const value = random.chance(0.3) ? fuzzer.hostile() : fuzzer.valid(parameter.schema ?? {});
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encode(queryValue(value)) || 'x');
    else if (parameter.in === 'query' && (parameter.required || random.chance(0.5))) {
      query.push(`${parameter.name}=${encode(queryValue(value))}`);
    }
  }
  if (random.chance(0.05))
    query.push(random.pick(['__proto__[x]=1', 'constructor[x]=1', 'unknown=1', 'limit[]=1', 'toString=1', 'a%00=1']));
  if (random.chance(0.02)) path += '/';
  if (query.length > 0) path += `?${query.join('&')}`;

  const request: FuzzRequest = { method, path, headers };
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  if (bodySchema && method === 'POST') {
    const dedupKey = `fz-${SEED}-${index}`;
    let document: Json;
    if (template === BATCH_PATH) {
      // A batch of events each built as the single endpoint's body is, so each is answered on its own.
      const keys = Array.from({ length: random.int(1, 5) }, (_, position) => `${dedupKey}-${position}`);
      document = { events: keys.map((key) => fuzzedEvent(fuzzer, random, DEAL_EVENT_SCHEMA, key)) };
      if (random.chance(0.1)) mutate(document, fuzzer, random);
      request.dedupKeys = keys;
    } else {
      document = fuzzedEvent(fuzzer, random, bodySchema, dedupKey);
      request.dedupKeys = [dedupKey];
    }
    headers['content-type'] = random.chance(0.03)
      ? random.pick(['text/plain', 'application/xml', 'application/json; charset=latin1'])
      : 'application/json';
    let body: string | Buffer = JSON.stringify(document);
    if (random.chance(0.03)) body = random.pick(['{', '{"external_id":', 'null', '[]', '"x"', '\u0000', '{"a":1}}']);
    if (random.chance(0.03)) {
      headers['content-encoding'] = random.pick(['gzip', 'deflate', 'br', 'compress', 'x-unknown', 'gzip, br']);
      body = Buffer.from(body);
    }
    request.body = body;
  }
  return request;
}

const BATCH_PATH = '/v1/deals/events/batch';
const DEAL_EVENT_SCHEMA: Schema = { $ref: '#/components/schemas/DealEvent' };

/** An event from the schema, under `dedupKey`, aimed at a few reps and large totals, then perhaps mutated. */
function fuzzedEvent(fuzzer: ContractFuzzer, random: Random, schema: Schema, dedupKey: string): Record<string, Json> {
  const event = fuzzer.valid(schema) as Record<string, Json>;
  event.dedup_key = dedupKey;
  if (typeof event.state === 'object' && event.state !== null && !Array.isArray(event.state)) {
    const state = event.state as Record<string, Json>;
    // Concentrate amounts on a few reps in one period so running totals grow large.
    if (random.chance(0.7)) state.owner_external_id = random.pick(REPS);
    if (random.chance(0.5)) state.stage = 'closed_won';
    if (random.chance(0.5)) state.close_date = '2026-06-15';
    if (random.chance(0.3)) state.amount_cents = random.pick([2 ** 52, 2 ** 53 - 1, 10 ** 13, 10 ** 15, 1]);
  }
  mutate(event, fuzzer, random);
  return event;
}

/** Replaces, removes or adds one member somewhere in the event (or nothing, half the time). */
function mutate(event: Record<string, Json>, fuzzer: ContractFuzzer, random: Random): void {
  if (random.chance(0.5)) return;
  const state = (
    typeof event.state === 'object' && event.state !== null && !Array.isArray(event.state) ? event.state : event
  ) as Record<string, Json>;
  const target = random.chance(0.5) ? state : event;
  const names = [...Object.keys(target), 'custom', 'occurred_at', 'nested', '__proto__', 'constructor'];
  const name = random.pick(names);
  switch (random.int(0, 3)) {
    case 0:
      delete target[name];
      break;
    case 1:
      target[name] = fuzzer.hostile();
      break;
    case 2:
      target[random.pick(HOSTILE_TEXT) as string] = fuzzer.hostile();
      break;
    default: {
      let nested: Json = fuzzer.hostile();
      for (let level = random.int(1, 40); level > 0; level--) nested = { n: nested };
      target[name] = nested;
    }
  }
}

interface Failure {
  request: string;
  status: number;
  body: string;
  problem: string;
}

const ERROR_CODES = new Set(Object.keys(ERROR_STATUS));

function offFormat(status: number, text: string, contentType: string | null): string | null {
  if (!contentType?.startsWith('application/json')) return `content type ${contentType}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'body is not JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body is not an object';
  const { error, reason, retry_after_seconds, ...rest } = body as Record<string, unknown>;
  if (typeof error !== 'string' || !ERROR_CODES.has(error)) return `error ${JSON.stringify(error)}`;
  if (ERROR_STATUS[error as keyof typeof ERROR_STATUS] !== status) return `error ${error} with status ${status}`;
  if (reason !== undefined && typeof reason !== 'string') return 'reason is not a string';
  if (retry_after_seconds !== undefined && !Number.isInteger(retry_after_seconds)) return 'retry_after_seconds';
  if (Object.keys(rest).length > 0) return `extra members ${Object.keys(rest).join(', ')}`;
  return null;
}

// Responses are checked here against the error format; validating each against the contract as well would double
// the run's time.
test.override('serverSettings', {
  env: { QUOTIENT_DB_POOL_SIZE: '8', QUOTIENT_VALIDATE_RESPONSES: 'false' },
  options: {},
});

/** A plan with a retroactive tier whose rate can push an amount past what PostgreSQL stores. */
function fuzzedPlan() {
  const plan = planDocument();
  plan.chips.push({
    key: 'retro',
    name: 'Retroactive tiers',
    kind: 'tiered_commission',
    mode: 'retroactive',
    tiers: [
      { up_to_cents: 1_000_000, rate_bps: 500 },
      { up_to_cents: null, rate_bps: 100_000 },
    ],
  });
  return plan;
}

describe('contract-driven fuzzing', () => {
  test(`${REQUESTS} requests from the served contract: no 5xx, every error in the error format, refusals write nothing`, async ({
    db,
    server,
    newOrg,
  }) => {
    const { org, rawKey } = await newOrg({ rateLimit: 100_000 });
    await applyPlan(db, org.id, fuzzedPlan());
    process.stdout.write(`contract fuzzer: seed ${SEED} (replay with QUOTIENT_FUZZ_SEED=${SEED})\n`);
    const contract = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as Contract;
    const random = generator(SEED);
    const fuzzer = new ContractFuzzer(contract, random);
    // Built up front from the one generator, so the same seed gives the same requests whatever the interleaving.
    const requests = Array.from({ length: REQUESTS }, (_, index) =>
      buildRequest(fuzzer, random, contract, rawKey, index),
    );
    const failures: Failure[] = [];
    const refusedKeys: string[] = [];
    let created = 0;
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const request = requests[next++] as FuzzRequest;
        const response = await fetch(`${server.url}${request.path}`, {
          method: request.method,
          headers: request.headers,
          ...(request.body === undefined ? {} : { body: request.body }),
        });
        // An event stream stays open: its answer is its status and headers.
        const streaming = response.ok && response.headers.get('content-type')?.startsWith('text/event-stream');
        if (streaming) await response.body?.cancel();
        const text = streaming ? '' : await response.text();
        const described = `${request.method} ${request.path} ${JSON.stringify(request.headers)} ${String(request.body ?? '').slice(0, 300)}`;
        if (response.status >= 500)
          failures.push({ request: described, status: response.status, body: text, problem: '5xx' });
        if (response.status >= 400) {
          const problem = offFormat(response.status, text, response.headers.get('content-type'));
          if (problem) failures.push({ request: described, status: response.status, body: text, problem });
          refusedKeys.push(...(request.dedupKeys ?? []));
        }
        if (response.status === 201) created++;
        if (response.status === 200 && request.method === 'POST' && request.path.startsWith(BATCH_PATH)) {
          const { results } = JSON.parse(text) as { results: Array<{ status: number; error?: unknown }> };
          results.forEach((result, position) => {
            if (result.status === 201) created++;
            if (result.status >= 400) {
              const problem = offFormat(result.status, JSON.stringify(result.error), 'application/json');
              if (problem) failures.push({ request: described, status: result.status, body: text, problem });
              const key = request.dedupKeys?.[position];
              if (key) refusedKeys.push(key);
            }
          });
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    const report = `seed ${SEED}: ${failures.length} failures\n${failures
      .slice(0, 15)
      .map((failure) => `${failure.problem} ${failure.status} ${failure.body.slice(0, 200)}\n    ${failure.request}`)
      .join('\n')}`;
    assert.deepEqual(failures, [], report);

    const refusedWrites = await db.sourceEvent.count({ where: { org_id: org.id, dedup_key: { in: refusedKeys } } });
    assert.equal(refusedWrites, 0, `seed ${SEED}: refused requests wrote source events`);
    const stored = await db.sourceEvent.count({ where: { org_id: org.id } });
    assert.equal(stored, created, `seed ${SEED}: source events other than the ${created} accepted ones`);
  }, 300_000);
});
