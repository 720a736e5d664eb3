import { QuotientConnectionError, QuotientTimeoutError } from './errors.ts';
import { backoffDelayMs, type RetryPolicy, retryDelayForResponse } from './retry.ts';

/** The fetch the client sends with: one Request in, one Response out. */
export type FetchFunction = (request: Request) => Promise<Response>;

export interface TransportSettings extends RetryPolicy {
  /** Limit for one attempt, from sending the request until the whole response has arrived. */
  timeoutMs: number;
  fetch: FetchFunction;
  /** Sees every response, retried ones included (the client reads the rate-limit headers here). */
  observe: (response: Response) => void;
}

/**
 * A fetch that applies the retry policy below openapi-fetch, so that the typed raw client and every
 * resource method share it. Each attempt sends a clone of the request, so a retried POST carries the
 * same bytes, and with them the same `dedup_key`. The caller's `signal` cancels the attempt in flight
 * and the wait before the next one; its abort reason is thrown as it is.
 */
export function retryingFetch(settings: TransportSettings): FetchFunction {
  return async (request) => {
    const attempts = settings.maxRetries + 1;
    for (let attempt = 1; ; attempt++) {
      const isLast = attempt === attempts;
      const timeout = AbortSignal.timeout(settings.timeoutMs);
      const signal = AbortSignal.any([request.signal, timeout]);
      let response: Response;
      try {
        response = await receiveWhole(
          await settings.fetch(new Request(isLast ? request : request.clone(), { signal })),
        );
      } catch (cause) {
        if (request.signal.aborted) throw request.signal.reason;
        if (isLast) throw connectionFailure(request, cause, attempts, timeout.aborted, settings.timeoutMs);
        await sleep(backoffDelayMs(attempt - 1, settings), request.signal);
        continue;
      }
      settings.observe(response);
      if (isLast) return response;
      const delay = retryDelayForResponse(response.status, response.headers.get('retry-after'), attempt - 1, settings);
      if (delay === undefined) return response;
      await sleep(delay, request.signal);
    }
  };
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * Reads the whole body inside the attempt, so that a connection dropped or stalled halfway through the
 * body fails this attempt (and is retried, within the timeout) instead of surfacing later, unretried,
 * from the JSON parsing. The API's bodies are small JSON documents.
 */
async function receiveWhole(response: Response): Promise<Response> {
  const body = NULL_BODY_STATUSES.has(response.status) ? null : await response.arrayBuffer();
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function connectionFailure(request: Request, cause: unknown, attempts: number, timedOut: boolean, timeoutMs: number) {
  const target = `${request.method} ${request.url}`;
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  if (timedOut) {
    return new QuotientTimeoutError(`${target}: no complete response within ${timeoutMs} ms, ${tries}`, {
      cause,
      attempts,
      timeoutMs,
    });
  }
  return new QuotientConnectionError(`${target}: connection failed, ${tries} (${describe(cause)})`, {
    cause,
    attempts,
  });
}

/** Node's fetch says only "fetch failed"; the useful part ("other side closed", ECONNREFUSED) is its cause. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
