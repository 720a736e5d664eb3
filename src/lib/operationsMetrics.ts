import { Counter, Registry } from 'prom-client';

// Counters of what a Quotient process did, whichever part of it did it (the HTTP layer, the deal pipeline,
// the webhook worker, in `serve` or in `worker`). One registry per process; /metrics serves it beside the
// HTTP metrics. Names follow Prometheus' rules: snake_case, base units, counters end in _total.

export const operationsRegistry = new Registry();

const webhookAttempts = new Counter({
  name: 'quotient_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome: delivered, retry_scheduled (failed, retried later), failed (not retried), endpoint_disabled (after a 410 or 5 days of failures).',
  labelNames: ['outcome'],
  registers: [operationsRegistry],
});

const ingestedEvents = new Counter({
  name: 'quotient_ingestion_events_total',
  help: 'Deal events applied (committed), by the type of domain event they became (deal.created, deal.closed_won, ...; stale for late events).',
  labelNames: ['type'],
  registers: [operationsRegistry],
});

const earningsRows = new Counter({
  name: 'quotient_earnings_rows_written_total',
  help: 'Earnings rows written, by status (counted as written: a transaction rolled back afterwards is counted too).',
  labelNames: ['status'],
  registers: [operationsRegistry],
});

export type WebhookAttemptOutcome = 'delivered' | 'retry_scheduled' | 'failed' | 'endpoint_disabled';

export function countWebhookAttempt(outcome: WebhookAttemptOutcome): void {
  webhookAttempts.inc({ outcome });
}

export function countIngestedEvent(domainEventType: string): void {
  ingestedEvents.inc({ type: domainEventType });
}

export function countEarningsRows(statuses: readonly string[]): void {
  const byStatus = new Map<string, number>();
  for (const status of statuses) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  for (const [status, count] of byStatus) earningsRows.inc({ status }, count);
}
