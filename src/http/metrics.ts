import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of one process, served at /metrics. Routes are contract templates, never raw paths. */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly rejections: Counter<'route'>;

  constructor(auditQueueDepth: () => number, rateLimitStore: string) {
    collectDefaultMetrics({ register: this.registry, prefix: 'quotient_process_' });
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
