import * as grpc from '@grpc/grpc-js';
import avro from 'avsc';
import { pubSubDefinition } from '../../src/services/connectors/salesforcePubSub.ts';
import type { SalesforceSimulator } from './salesforceSimulator.ts';

// Salesforce's Pub/Sub API as its public reference describes it (developer.salesforce.com/docs/platform/pub-sub-api),
// served over real gRPC (@grpc/grpc-js) from the same pubsub_api.proto the connector loads, beside the REST
// simulator of salesforceSimulator.ts whose records it publishes changes of: `GetSchema` serves the Avro schema of
// OpportunityChangeEvent; `Subscribe` is the bidirectional stream, its first FetchRequest naming the topic and where
// to start (LATEST, EARLIEST or CUSTOM after a replay id), each FetchRequest adding to the events the client takes
// (flow control), each FetchResponse carrying events with 8-byte replay ids and the latest replay id (an empty one
// when caught up). Events are Avro-encoded with a ChangeEventHeader whose changedFields and nulledFields are bitmaps
// of the schema's field positions (`0x…`, bit i the i-th field). Retention ends when a test says so (`expire`): a
// replay id of an expired event is then refused with Salesforce's `error-code` trailer. A test can drop the streams.

export const CHANNEL = '/data/OpportunityChangeEvent';
const REPLAY_ID_REFUSED = 'sfdc.platform.eventbus.grpc.subscription.fetch.replayid.corrupted';

const optional = (type: string) => ({ type: ['null', type], default: null });
const SCHEMA = {
  type: 'record',
  name: 'OpportunityChangeEvent',
  namespace: 'com.sforce.eventbus',
  fields: [
    {
      name: 'ChangeEventHeader',
      type: {
        type: 'record',
        name: 'ChangeEventHeader',
        fields: [
          { name: 'entityName', type: 'string' },
          { name: 'recordIds', type: { type: 'array', items: 'string' } },
          {
            name: 'changeType',
            type: {
              type: 'enum',
              name: 'ChangeType',
              symbols: ['CREATE', 'UPDATE', 'DELETE', 'UNDELETE', 'GAP_CREATE', 'GAP_UPDATE', 'GAP_DELETE'],
            },
          },
          { name: 'changeOrigin', type: 'string' },
          { name: 'transactionKey', type: 'string' },
          { name: 'sequenceNumber', type: 'int' },
          { name: 'commitTimestamp', type: 'long' },
          { name: 'commitNumber', type: 'long' },
          { name: 'commitUser', type: 'string' },
          { name: 'nulledFields', type: { type: 'array', items: 'string' } },
          { name: 'diffFields', type: { type: 'array', items: 'string' } },
          { name: 'changedFields', type: { type: 'array', items: 'string' } },
        ],
      },
    },
    { name: 'AccountId', ...optional('string') },
    { name: 'Name', ...optional('string') },
    { name: 'StageName', ...optional('string') },
    { name: 'Amount', ...optional('double') },
    // A Date field: days since the epoch. A DateTime: milliseconds.
    { name: 'CloseDate', ...optional('int') },
    { name: 'Type', ...optional('string') },
    { name: 'LeadSource', ...optional('string') },
    { name: 'OwnerId', ...optional('string') },
    { name: 'CurrencyIsoCode', ...optional('string') },
    { name: 'LastModifiedDate', ...optional('long') },
  ],
};
const FIELD_NAMES = SCHEMA.fields.map((field) => field.name);
const TYPE = avro.Type.forSchema(SCHEMA as never);
const SCHEMA_ID = 'sim-OpportunityChangeEvent-1';

/** The bitmap of these fields' positions, as Salesforce writes changedFields and nulledFields. */
function bitmap(names: readonly string[]): string[] {
  let bits = 0n;
  for (const name of names) bits |= 1n << BigInt(FIELD_NAMES.indexOf(name));
  return names.length === 0 ? [] : [`0x${bits.toString(16).toUpperCase().padStart(6, '0')}`];
}

interface Published {
  seq: number;
  payload: Buffer;
}

export interface Change {
  changeType: 'CREATE' | 'UPDATE' | 'DELETE' | 'UNDELETE' | 'GAP_CREATE' | 'GAP_UPDATE' | 'GAP_DELETE';
  recordIds: string[];
  /** The fields the event carries (an UPDATE: the changed ones), by API name. */
  fields?: Record<string, unknown>;
  nulled?: string[];
  commitTimestamp: number;
  transactionKey?: string;
}

export interface PubSubSimulator {
  url: string;
  /** What each Subscribe stream's first FetchRequest asked: its preset and replay id (a number), in order. */
  subscriptions: Array<{ preset: string; after: number | null }>;
  /** Each FetchRequest's num_requested, in order. */
  requested: number[];
  /** A change of the REST simulator's record published: CREATE the first time, else UPDATE of the fields given. */
  change(id: string, fields: Record<string, unknown>): void;
  remove(id: string): void;
  /** A change published as it is given (out of order, or for a record the REST simulator does not have). */
  publish(change: Change): void;
  /** Changes published at once: delivered in one FetchResponse to a stream that asked for enough. */
  publishAll(changes: Change[]): void;
  /** Every event published so far is past the retention: its replay id is refused, and it is never delivered. */
  expire(): void;
  dropStreams(): void;
  /** The sessions end in Salesforce (the REST simulator's too): open streams end UNAUTHENTICATED, as Salesforce's do. */
  endSessions(): void;
  reset(): void;
  close(): Promise<void>;
}

const replayIdOf = (seq: number) => {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(BigInt(seq));
  return buffer;
};

export async function startPubSubSimulator(rest: SalesforceSimulator): Promise<PubSubSimulator> {
  let events: Published[] = [];
  let retainedFrom = 1;
  let seq = 0;
  let transaction = 0;
  const streams = new Set<() => void>();
  const calls = new Set<grpc.ServerDuplexStream<Record<string, unknown>, unknown>>();

  function authorized(metadata: grpc.Metadata): boolean {
    const token = String(metadata.get('accesstoken')[0] ?? '');
    return rest.hasSession(token) && metadata.get('tenantid')[0] === rest.orgId;
  }

  const refuse = (call: { emit: (event: string, error: unknown) => void }, code: grpc.status, details: string) => {
    const metadata = new grpc.Metadata();
    if (details.includes('replay')) metadata.set('error-code', REPLAY_ID_REFUSED);
    call.emit('error', { code, details, metadata });
  };

  function subscribe(call: grpc.ServerDuplexStream<Record<string, unknown>, unknown>): void {
    let cursor: number | null = null;
    let pending = 0;
    const deliver = () => {
      if (cursor === null) return;
      const from = cursor;
      const available = events.filter((event) => event.seq > from && event.seq >= retainedFrom);
      if (available.length === 0 || pending === 0) return;
      const sent = available.slice(0, pending);
      pending -= sent.length;
      cursor = (sent.at(-1) as Published).seq;
      call.write({
        events: sent.map((event) => ({
          event: { id: `e${event.seq}`, schema_id: SCHEMA_ID, payload: event.payload, headers: [] },
          replay_id: replayIdOf(event.seq),
        })),
        latest_replay_id: replayIdOf(seq),
        rpc_id: `rpc-${seq}`,
        pending_num_requested: pending,
      });
    };
    call.on('data', (request: Record<string, unknown>) => {
      simulator.requested.push(Number(request.num_requested));
      if (cursor === null) {
        if (!authorized(call.metadata)) return refuse(call, grpc.status.UNAUTHENTICATED, 'invalid session');
        if (request.topic_name !== CHANNEL) return refuse(call, grpc.status.NOT_FOUND, 'no such topic');
        const preset = String(request.replay_preset);
        const given = request.replay_id as Buffer | undefined;
        const after = preset === 'CUSTOM' && given?.length === 8 ? Number(given.readBigUInt64BE()) : null;
        simulator.subscriptions.push({ preset, after });
        if (preset === 'CUSTOM') {
          if (after === null || after > seq || after < retainedFrom) {
            return refuse(call, grpc.status.INVALID_ARGUMENT, 'the replay id is not valid or past the retention');
          }
          cursor = after;
        } else cursor = preset === 'LATEST' ? seq : retainedFrom - 1;
      }
      pending += Number(request.num_requested);
      deliver();
      if (cursor === seq) {
        call.write({
          events: [],
          // Caught up: the latest replay id (none yet on a topic nothing was published to).
          latest_replay_id: seq === 0 ? Buffer.alloc(0) : replayIdOf(seq),
          rpc_id: 'keepalive',
          pending_num_requested: pending,
        });
      }
    });
    call.on('cancelled', () => {
      streams.delete(deliver);
      calls.delete(call);
    });
    call.on('end', () => {
      streams.delete(deliver);
      calls.delete(call);
      call.end();
    });
    streams.add(deliver);
    calls.add(call);
  }

  const server = new grpc.Server();
  server.addService(pubSubDefinition().service, {
    Subscribe: subscribe,
    GetSchema(call: grpc.ServerUnaryCall<{ schema_id: string }, unknown>, callback: grpc.sendUnaryData<unknown>) {
      if (!authorized(call.metadata))
        return callback({ code: grpc.status.UNAUTHENTICATED, details: 'invalid session' });
      if (call.request.schema_id !== SCHEMA_ID) return callback({ code: grpc.status.NOT_FOUND, details: 'no schema' });
      callback(null, { schema_json: JSON.stringify(SCHEMA), schema_id: SCHEMA_ID, rpc_id: 'schema' });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );

  function publish(change: Change, deliverNow = true): void {
    transaction += 1;
    const fields = change.fields ?? {};
    const record = Object.fromEntries(FIELD_NAMES.slice(1).map((name) => [name, fields[name] ?? null]));
    const carried = Object.keys(fields);
    const payload = TYPE.toBuffer({
      ChangeEventHeader: {
        entityName: 'Opportunity',
        recordIds: change.recordIds,
        changeType: change.changeType,
        changeOrigin: 'com/salesforce/api/rest/62.0',
        transactionKey: change.transactionKey ?? `00077f3b-${transaction.toString(16).padStart(4, '0')}-sim`,
        sequenceNumber: 1,
        commitTimestamp: change.commitTimestamp,
        commitNumber: transaction,
        commitUser: '0055g00000AAAAAAA1',
        nulledFields: bitmap(change.nulled ?? []),
        diffFields: [],
        changedFields: change.changeType === 'UPDATE' ? bitmap([...carried, ...(change.nulled ?? [])]) : [],
      },
      ...record,
    });
    seq += 1;
    events.push({ seq, payload });
    if (deliverNow) for (const deliver of streams) deliver();
  }

  /** A REST record's fields as the change event carries them (dates as days, instants as milliseconds). */
  function asEvent(fields: Record<string, unknown>, modified: number): Record<string, unknown> {
    const carried: Record<string, unknown> = { ...fields, LastModifiedDate: modified };
    if (typeof fields.CloseDate === 'string')
      carried.CloseDate = Date.parse(`${fields.CloseDate}T00:00:00Z`) / 86_400_000;
    if (typeof fields.Amount === 'string') carried.Amount = Number(fields.Amount);
    return carried;
  }
  const modstamp = (id: string) => Date.parse(String(rest.opportunity(id)?.SystemModstamp).replace('+0000', 'Z'));

  const simulator: PubSubSimulator = {
    url: `http://127.0.0.1:${port}`,
    subscriptions: [],
    requested: [],
    change(id, fields) {
      const existed = rest.opportunity(id) !== undefined;
      rest.putOpportunity(id, fields);
      const at = modstamp(id);
      const record = rest.opportunity(id) ?? {};
      const carried = existed
        ? fields
        : Object.fromEntries(
            FIELD_NAMES.filter((name) => record[name] !== undefined).map((name) => [name, record[name]]),
          );
      publish({
        changeType: existed ? 'UPDATE' : 'CREATE',
        recordIds: [id],
        fields: asEvent(carried, at),
        commitTimestamp: at,
      });
    },
    remove(id) {
      rest.deleteOpportunity(id);
      publish({ changeType: 'DELETE', recordIds: [id], commitTimestamp: modstamp(id) });
    },
    publish: (change) => publish(change),
    publishAll(changes) {
      for (const change of changes) publish(change, false);
      for (const deliver of streams) deliver();
    },
    expire() {
      retainedFrom = seq + 1;
    },
    dropStreams() {
      for (const call of calls) refuse(call, grpc.status.UNAVAILABLE, 'the stream was dropped');
      calls.clear();
      streams.clear();
    },
    endSessions() {
      rest.expireSessions();
      for (const call of calls)
        refuse(call, grpc.status.UNAUTHENTICATED, 'sfdc.platform.eventbus.grpc.service.auth.error');
      calls.clear();
      streams.clear();
    },
    reset() {
      simulator.dropStreams();
      events = [];
      retainedFrom = 1;
      seq = 0;
      simulator.subscriptions = [];
      simulator.requested = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        simulator.dropStreams();
        server.tryShutdown(() => resolve());
      }),
  };
  return simulator;
}
