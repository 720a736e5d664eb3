import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import avro from 'avsc';
import type { RecordSchema } from '../../domain/connectors/salesforceChanges.ts';

// Salesforce's Pub/Sub API (developer.salesforce.com/docs/platform/pub-sub-api) through @grpc/grpc-js, with its own
// `pubsub_api.proto` (proto/, CC0) loaded by @grpc/proto-loader: `GetSchema` for the Avro schema an event is written
// in (decoded with avsc), and `Subscribe`, a bidirectional stream the subscriber drives by flow control: the first
// FetchRequest names the topic, where to start (a stored replay id, or the earliest retained event) and how many
// events it takes; each later FetchRequest asks for more as the batch in hand is committed. Every call carries the
// session as Salesforce asks: `accesstoken`, `instanceurl` and `tenantid` (the org id) metadata.

const PROTO = fileURLToPath(new URL('./proto/pubsub_api.proto', import.meta.url));

/** Salesforce's public Pub/Sub API endpoint. */
export const PUBSUB_ENDPOINT = 'api.pubsub.salesforce.com:7443';

type PubSubClientInstance = grpc.Client & {
  GetSchema: (
    request: { schema_id: string },
    metadata: grpc.Metadata,
    callback: (error: grpc.ServiceError | null, response?: { schema_json: string }) => void,
  ) => grpc.ClientUnaryCall;
  Subscribe: (metadata: grpc.Metadata) => grpc.ClientDuplexStream<FetchRequest, FetchResponse>;
};

/** The service definition of `eventbus.v1.PubSub`, loaded once (the simulator of the tests serves the same). */
export function pubSubDefinition(): { service: grpc.ServiceDefinition; Client: grpc.ServiceClientConstructor } {
  const definition = protoLoader.loadSync(PROTO, { keepCase: true, longs: String, enums: String, defaults: true });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    eventbus: { v1: { PubSub: grpc.ServiceClientConstructor } };
  };
  return { service: loaded.eventbus.v1.PubSub.service, Client: loaded.eventbus.v1.PubSub };
}

export interface FetchRequest {
  topic_name?: string;
  replay_preset?: 'LATEST' | 'EARLIEST' | 'CUSTOM';
  replay_id?: Buffer;
  num_requested: number;
}

export interface ConsumerEvent {
  event: { id: string; schema_id: string; payload: Buffer };
  replay_id: Buffer;
}

export interface FetchResponse {
  events: ConsumerEvent[];
  latest_replay_id: Buffer;
  rpc_id: string;
  pending_num_requested: number;
}

/** How a stream ended: Salesforce's gRPC status, and its `error-code` trailer (a replay id it cannot serve, …). */
export interface StreamEnd {
  code: number;
  message: string;
  errorCode: string | null;
}

/** Salesforce's error code for a replay id it does not have any more (older than the retention) or never issued. */
export function isReplayIdRefused(end: StreamEnd): boolean {
  return end.errorCode !== null && /replayid/i.test(end.errorCode);
}

/**
 * A refusal that is the connection's own (its session, its org's Change Data Capture set-up, the channel), shown on
 * the connection as `failing`; any other end (unavailable, a deadline, an internal error) is Salesforce's or the
 * network's, and is retried. UNAUTHENTICATED is the connection's only once a new session was refused too.
 */
export function isConnectionFault(end: StreamEnd): boolean {
  return [
    grpc.status.INVALID_ARGUMENT,
    grpc.status.NOT_FOUND,
    grpc.status.PERMISSION_DENIED,
    grpc.status.FAILED_PRECONDITION,
    grpc.status.UNAUTHENTICATED,
  ].includes(end.code);
}

/** Salesforce does not take the session (expired, revoked, or the org's session timeout): a new one is needed. */
export function isUnauthenticated(end: StreamEnd): boolean {
  return end.code === grpc.status.UNAUTHENTICATED;
}

/** A unary call's gRPC error (GetSchema) as a stream's end; null for any other error. */
export function streamEndOf(error: unknown): StreamEnd | null {
  const failed = error as Partial<grpc.ServiceError> | null;
  if (typeof failed?.code !== 'number' || failed.metadata === undefined) return null;
  const trailer = failed.metadata.get('error-code')[0];
  return {
    code: failed.code,
    message: failed.details || failed.message || '',
    errorCode: trailer ? String(trailer) : null,
  };
}

export interface PubSubSession {
  accessToken: string;
  instanceUrl: string;
  tenantId: string;
}

/** One Subscribe stream: its responses in order, then how it ended. */
class Subscription {
  readonly #call: grpc.ClientDuplexStream<FetchRequest, FetchResponse>;
  readonly #queue: Array<FetchResponse | StreamEnd> = [];
  #waiting: ((value: FetchResponse | StreamEnd) => void) | null = null;
  #ended = false;
  /** Salesforce answered on this stream (headers or a response): it was reached, whatever ends the stream later. */
  reached = false;
  /** A response came (events or a keepalive): the subscription was taken. */
  subscribed = false;

  constructor(call: grpc.ClientDuplexStream<FetchRequest, FetchResponse>) {
    this.#call = call;
    call.on('metadata', () => {
      this.reached = true;
    });
    call.on('data', (response: FetchResponse) => {
      this.reached = true;
      this.subscribed = true;
      this.#push(response);
    });
    call.on('error', (error: grpc.ServiceError) => {
      const trailer = error.metadata?.get('error-code')[0];
      this.#end({
        code: error.code,
        message: error.details || error.message,
        errorCode: trailer ? String(trailer) : null,
      });
    });
    call.on('end', () => this.#end({ code: grpc.status.UNAVAILABLE, message: 'the stream ended', errorCode: null }));
  }

  #push(item: FetchResponse | StreamEnd): void {
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = null;
      waiting(item);
    } else this.#queue.push(item);
  }

  #end(end: StreamEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#push(end);
  }

  /** The next batch, or how the stream ended. */
  next(): Promise<FetchResponse | StreamEnd> {
    const queued = this.#queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  send(request: FetchRequest): void {
    if (!this.#ended) this.#call.write(request);
  }

  /** Flow control: the subscriber takes this many more events. */
  request(count: number): void {
    this.send({ num_requested: count });
  }

  cancel(): void {
    this.#end({ code: grpc.status.CANCELLED, message: 'cancelled', errorCode: null });
    this.#call.cancel();
  }
}

export function isStreamEnd(item: FetchResponse | StreamEnd): item is StreamEnd {
  return 'code' in item && !('events' in item);
}

/**
 * The Pub/Sub API of one Salesforce org. `address` is `host:port` (TLS), or `http://127.0.0.1:port` for a server on
 * the loopback address without TLS (the tests' simulator).
 */
class PubSubClient {
  readonly #client: PubSubClientInstance;
  readonly #session: PubSubSession;
  readonly #schemas = new Map<string, { type: avro.Type; schema: RecordSchema }>();

  constructor(address: string, session: PubSubSession) {
    const plain = /^http:\/\/((?:127\.0\.0\.1|localhost|\[::1\]):\d+)\/?$/.exec(address);
    const target = plain ? (plain[1] as string) : address.replace(/^https:\/\//, '').replace(/\/$/, '');
    const credentials = plain ? grpc.credentials.createInsecure() : grpc.credentials.createSsl();
    const { Client } = pubSubDefinition();
    this.#client = new Client(target, credentials) as unknown as PubSubClientInstance;
    this.#session = session;
  }

  #metadata(): grpc.Metadata {
    const metadata = new grpc.Metadata();
    metadata.set('accesstoken', this.#session.accessToken);
    metadata.set('instanceurl', this.#session.instanceUrl);
    metadata.set('tenantid', this.#session.tenantId);
    return metadata;
  }

  /** The Avro type of a schema id (`GetSchema`, once per id). */
  async schema(schemaId: string): Promise<{ type: avro.Type; schema: RecordSchema }> {
    const known = this.#schemas.get(schemaId);
    if (known) return known;
    const info = await new Promise<{ schema_json: string }>((resolve, reject) => {
      this.#client.GetSchema({ schema_id: schemaId }, this.#metadata(), (error, response) => {
        if (error || !response) reject(error ?? new Error('GetSchema answered nothing'));
        else resolve(response);
      });
    });
    const schema = JSON.parse(info.schema_json) as RecordSchema;
    const found = { type: avro.Type.forSchema(schema as never), schema };
    this.#schemas.set(schemaId, found);
    return found;
  }

  /** An event's payload, decoded by its schema. */
  async decode(event: ConsumerEvent): Promise<{ payload: Record<string, unknown>; schema: RecordSchema }> {
    const { type, schema } = await this.schema(event.event.schema_id);
    return { payload: type.fromBuffer(event.event.payload) as Record<string, unknown>, schema };
  }

  /** A Subscribe stream on the topic, after the replay id (or from the earliest retained event), taking `count`. */
  subscribe(topic: string, after: Buffer | null, count: number): Subscription {
    const subscription = new Subscription(this.#client.Subscribe(this.#metadata()));
    const start: FetchRequest =
      after === null
        ? { topic_name: topic, replay_preset: 'EARLIEST', num_requested: count }
        : { topic_name: topic, replay_preset: 'CUSTOM', replay_id: after, num_requested: count };
    subscription.send(start);
    return subscription;
  }

  close(): void {
    this.#client.close();
  }
}

export type { PubSubClient, Subscription };

export function connectPubSub(address: string, session: PubSubSession): PubSubClient {
  return new PubSubClient(address, session);
}
