import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { operationsRegistry } from '../lib/operationsMetrics.ts';

export interface WebhookBacklog {
  pending: number;
  oldestCreatedAt: Date | null;
}

/** Prometheus metrics of one process, served at /metrics. Routes are contract templates, never raw paths. */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly rejections: Counter<'route'>;

  /** `webhookBacklog` reads the outbox at scrape time; without it the backlog gauges are left out. */
  constructor(auditQueueDepth: () => number, rateLimitStore: string, webhookBacklog?: () => Promise<WebhookBacklog>) {
    collectDefaultMetrics({ register: this.registry, prefix: 'quotient_process_' });
    // prom-client also exports these counts as gauges named *_total, which Prometheus' naming rules reserve for
    // counters (promtool rejects them); the same values stay available without the suffix.
    for (const name of [
      'nodejs_active_handles_total',
      'nodejs_active_requests_total',
      'nodejs_active_resources_total',
    ]) {
      this.registry.removeSingleMetric(`quotient_process_${name}`);
    }
    this.requests = new Counter({
      name: 'quotient_http_requests_total',
      help: 'HTTP requests by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'quotient_http_request_duration_seconds',
      help: 'HTTP request latency by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    this.rejections = new Counter({
      name: 'quotient_rate_limit_rejections_total',
      help: 'Requests answered 429 rate_limited, by route template.',
      labelNames: ['route'],
      registers: [this.registry],
    });
    new Gauge({
      name: 'quotient_rate_limit_store',
      help: 'The rate-limit store in force (memory, redis or postgres): 1 for the one this process uses.',
      labelNames: ['store'],
      registers: [this.registry],
    }).set({ store: rateLimitStore }, 1);
    new Gauge({
      name: 'quotient_audit_queue_depth',
      help: 'Audit entries waiting to be written.',
      registers: [this.registry],
      collect() {
        this.set(auditQueueDepth());
      },
    });
    if (webhookBacklog) this.registerWebhookBacklog(webhookBacklog);
  }

  private registerWebhookBacklog(read: () => Promise<WebhookBacklog>): void {
    // One read of the outbox serves both gauges of a scrape.
    let reading: Promise<WebhookBacklog | null> | undefined;
    const backlog = () => {
      reading ??= read()
        .catch(() => null)
        .finally(() => setImmediate(() => (reading = undefined)));
      return reading;
    };
    new Gauge({
      name: 'quotient_webhook_deliveries_pending',
      help: 'Webhook deliveries not yet made (waiting for their first attempt or a retry), all orgs.',
      registers: [this.registry],
      async collect() {
        const now = await backlog();
        if (now) this.set(now.pending);
      },
    });
    new Gauge({
      name: 'quotient_webhook_oldest_pending_delivery_age_seconds',
      help: 'Age of the oldest webhook delivery not yet made (0 when none waits).',
      registers: [this.registry],
      async collect() {
        const now = await backlog();
        if (now) this.set(now.oldestCreatedAt ? Math.max(0, (Date.now() - now.oldestCreatedAt.getTime()) / 1000) : 0);
      },
    });
  }

  /** The text exposition of this server's metrics and of the process's operations counters. */
  async exposition(): Promise<string> {
    return Registry.merge([this.registry, operationsRegistry]).metrics();
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
  }

  rateLimited(route: string): void {
    this.rejections.inc({ route });
  }
}
