import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { type ClientRequest, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { forbiddenAddressReason } from '../domain/webhooks/addresses.ts';

export const USER_AGENT = 'Quotient-Webhooks/1';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SendResult {
  /** The response status, or null when none came. */
  status: number | null;
  /** Why there was no response, or why the status is not a success, for people. */
  error: string | null;
  latencyMs: number;
}

export interface SendOptions {
  timeoutMs: number;
  /** Accept private, loopback and link-local addresses (tests and local development). */
  allowPrivate: boolean;
}

/** The address was refused before connecting. */
class RefusedAddress extends Error {}

/**
 * POSTs one webhook. The name is resolved and every address it resolves to is checked just before connecting,
 * and the connection goes to the address that was checked, so DNS cannot point it inside between check and
 * use. Redirects are not followed: a 3xx is a failed attempt like any other non-2xx. The timeout covers the
 * whole attempt up to the response headers; the body of the response is not read.
 */
export function sendWebhook(target: WebhookRequest, options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((done) => {
    let settled = false;
    let request: ClientRequest | undefined;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request?.destroy();
      done({ ...result, latencyMs: elapsed() });
    };
    const timer = setTimeout(
      () => finish({ status: null, error: `timed out after ${options.timeoutMs / 1000} s without a response` }),
      options.timeoutMs,
    );

    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      finish({ status: null, error: 'the endpoint URL is not valid' });
      return;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !options.allowPrivate) {
      const reason = forbiddenAddressReason(host);
      if (reason) {
        finish({ status: null, error: `refused: ${host} is a ${reason} address` });
        return;
      }
    }
    const requestOptions: RequestOptions = {
      method: 'POST',
      headers: {
        ...target.headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(target.body)),
        'user-agent': USER_AGENT,
      },
      agent: false,
      ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    try {
      request = send(url, requestOptions, (response: IncomingMessage) => {
        const status = response.statusCode ?? null;
        const success = status !== null && status >= 200 && status < 300;
        finish({ status, error: success ? null : describeStatus(status, response) });
      });
    } catch (error) {
      finish({ status: null, error: (error as Error).message });
      return;
    }
    request.on('error', (error: NodeJS.ErrnoException) => {
      finish({ status: null, error: error instanceof RefusedAddress ? error.message : describeError(error) });
    });
    request.end(target.body);
  });
}

function describeStatus(status: number | null, response: IncomingMessage): string {
  if (status !== null && status >= 300 && status < 400) {
    return `redirect to ${response.headers.location ?? '(no location)'} not followed: register the final URL`;
  }
  return `the endpoint answered ${status}`;
}

function describeError(error: NodeJS.ErrnoException): string {
  return error.code && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message;
}

/** dns.lookup, refusing the whole name when any address it resolves to is not public. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) {
      callback(error, '', 4);
      return;
    }
    for (const { address } of addresses) {
      const reason = forbiddenAddressReason(address);
      if (reason) {
        callback(new RefusedAddress(`refused: ${hostname} resolves to ${address}, a ${reason} address`), '', 4);
        return;
      }
    }
    if (options.all) {
      (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      return;
    }
    const first = addresses[0];
    if (!first) callback(new RefusedAddress(`refused: ${hostname} resolves to no address`), '', 4);
    else callback(null, first.address, first.family);
  });
};
