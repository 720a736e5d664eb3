import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';

// Deal events sent by a few concurrent workers until told to stop, every outcome recorded: what the server
// acknowledged must be in the database afterwards, and every other answer must be a well-formed 503.

export interface Outcome {
  dedupKey: string;
  requestId: string;
  /** The HTTP status; null when the connection failed without an answer. */
  status: number | null;
  body: unknown;
  retryAfter: string | null;
}

export class EventLoad {
  readonly outcomes: Outcome[] = [];
  private stopped = false;
  private workers: Promise<void>[] = [];
  private readonly url: string;
  private readonly rawKey: string;

  constructor(url: string, rawKey: string) {
    this.url = url;
    this.rawKey = rawKey;
  }

  start(concurrency: number, externalIds: (worker: number, sequence: number) => string = defaultDeal): this {
    for (let worker = 0; worker < concurrency; worker++) {
      this.workers.push(
        (async () => {
          for (let sequence = 0; !this.stopped; sequence++) {
            this.outcomes.push(await sendEvent(this.url, this.rawKey, externalIds(worker, sequence), sequence));
          }
        })(),
      );
    }
    return this;
  }

  acknowledged(): Outcome[] {
    return this.outcomes.filter((outcome) => outcome.status === 201 || outcome.status === 200);
  }

  count(status: number | null): number {
    return this.outcomes.filter((outcome) => outcome.status === status).length;
  }

  /** Waits until `condition` holds, checking as outcomes arrive (the test's own timeout bounds the wait). */
  async until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise((done) => setTimeout(done, 20));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers);
  }
}

function defaultDeal(worker: number, sequence: number): string {
  return `load-${worker}-${sequence % 5}`;
}

export async function sendEvent(url: string, rawKey: string, externalId: string, amount: number): Promise<Outcome> {
  const dedupKey = `fault-${randomUUID()}`;
  const requestId = `req-${randomUUID()}`;
  try {
    const response = await fetch(`${url}/v1/deals/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({
        external_id: externalId,
        dedup_key: dedupKey,
        state: { amount_cents: amount, stage: 'negotiation', owner_external_id: 'rep-1', close_date: '2026-06-15' },
      }),
    });
    const text = await response.text();
    return {
      dedupKey,
      requestId,
      status: response.status,
      body: text === '' ? null : JSON.parse(text),
      retryAfter: response.headers.get('retry-after'),
    };
  } catch {
    return { dedupKey, requestId, status: null, body: null, retryAfter: null };
  }
}

/** Every answer is an acknowledgement or a 503 `unavailable` with Retry-After; nothing else, no 500. */
export function assertOnlyAcknowledgedOrUnavailable(outcomes: readonly Outcome[]): void {
  for (const outcome of outcomes) {
    if (outcome.status === 200 || outcome.status === 201) continue;
    assert.equal(outcome.status, 503, `unexpected answer ${outcome.status} ${JSON.stringify(outcome.body)}`);
    assertUnavailable(outcome);
  }
}

export function assertUnavailable(outcome: Outcome): void {
  assert.equal(outcome.status, 503, JSON.stringify(outcome.body));
  assert.equal((outcome.body as { error?: string }).error, 'unavailable');
  assert.ok(Number(outcome.retryAfter) >= 1, `Retry-After ${outcome.retryAfter}`);
}
