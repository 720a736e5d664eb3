import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got, body exactly as received. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** 1 for the first request this receiver got. */
  number: number;
}

/** What the receiver does with a request: answer with a status, or hold it open until released. */
export type Reply = number | 'hold';

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Requests whose `webhook-id` is this message id. */
  requestsFor(messageId: string): ReceivedWebhook[];
  /** Answers every held request with this status. */
  release(status: number): void;
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on 127.0.0.1 and a free port, as an integrator would run one; `reply` decides each
 * answer (default 204).
 */
export async function startReceiver(reply: (request: ReceivedWebhook) => Reply = () => 204): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        number: received.length + 1,
      };
      received.push(request);
      const answer = reply(request);
      if (answer === 'hold') held.push(res);
      else res.writeHead(answer).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    requestsFor: (messageId) => received.filter((request) => request.headers['webhook-id'] === messageId),
    release: (status) => {
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(status).end();
    },
    close: () =>
      new Promise((done) => {
        for (const res of held.splice(0)) res.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** Verifies a request with the npm package `standardwebhooks` (an implementation nobody here wrote). */
export function verifyWithStandardWebhooks(secret: string, request: ReceivedWebhook): unknown {
  return new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });
}

const DOCUMENT_ID = 'quotient-openapi.json';
const openapi = JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8')) as object;
// OpenAPI annotations (`example`, …) are not JSON Schema keywords Ajv knows; strict: false lets it ignore them.
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...openapi, $id: DOCUMENT_ID });

/** Holds a payload to the request-body schema of its kind in the contract's `webhooks:` section. */
export function assertMatchesContract(payload: unknown): void {
  const type = (payload as { type?: unknown }).type;
  assert.equal(typeof type, 'string', 'a payload has a type');
  const validate = ajv.getSchema(
    `${DOCUMENT_ID}#/webhooks/${String(type)}/post/requestBody/content/application~1json/schema`,
  );
  assert.ok(validate, `the contract has no webhook ${String(type)}`);
  assert.ok(
    validate(payload),
    `${String(type)} payload does not match the contract: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(payload, null, 2)}`,
  );
}
