import type { WebhookSettings } from '../config.ts';
import { decideAfterAttempt } from '../domain/webhooks/outcome.ts';
import { DISABLE_AFTER_FAILING_MS } from '../domain/webhooks/schedule.ts';
import { signatureHeader } from '../domain/webhooks/signature.ts';
import type { Logger } from '../lib/logger.ts';
import { countWebhookAttempt, type WebhookAttemptOutcome } from '../lib/operationsMetrics.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import type { ClaimedDelivery } from '../repositories/webhookDeliveries.ts';
import * as webhookDeliveries from '../repositories/webhookDeliveries.ts';
import { sendWebhook } from './sender.ts';

export type WorkerSettings = Pick<
  WebhookSettings,
  'allowPrivateAddresses' | 'retryScheduleMs' | 'timeoutMs' | 'pollIntervalMs' | 'concurrency'
>;

/**
 * Delivers the outbox. Each round leases as many due deliveries as it has free slots (see
 * webhookDeliveries.claimDue), makes the attempts concurrently and records each result. Any number of workers,
 * in `quotient serve` or `quotient worker` processes, may share a database: a delivery is leased to one of
 * them at a time. The lease lasts twice the attempt timeout, so an attempt's result is recorded well within
 * it; a worker that dies mid-attempt leaves the delivery to be claimed again when the lease has run out.
 */
export class WebhookWorker {
  readonly #db: Transactor;
  readonly #statements: Transaction;
  private readonly settings: WorkerSettings;
  private readonly logger: Logger;
  private readonly leaseMs: number;
  private readonly orgIds: readonly string[] | null;
  private readonly inFlight = new Set<Promise<void>>();
  private running: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;

  /**
   * `orgIds` restricts the worker to those orgs' deliveries; without it, it takes every org's. Operators set it with
   * QUOTIENT_WEBHOOK_ORGS (a worker of its own for a busy org); tests use it to run workers with their own settings
   * side by side on one database.
   */
  constructor(db: Transactor, settings: WorkerSettings, logger: Logger, options: { orgIds?: readonly string[] } = {}) {
    this.#db = db;
    this.#statements = db.statements;
    this.settings = settings;
    this.logger = logger.child({ component: 'webhook-worker' });
    this.leaseMs = settings.timeoutMs * 2;
    this.orgIds = options.orgIds ?? null;
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Claims nothing more and waits for the attempts in flight to finish and be recorded. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.running;
    await Promise.all(this.inFlight);
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const free = this.settings.concurrency - this.inFlight.size;
      if (free <= 0) {
        await Promise.race(this.inFlight);
        continue;
      }
      let claimed: ClaimedDelivery[];
      try {
        claimed = await webhookDeliveries.claimDue(this.#statements, free, this.leaseMs, this.orgIds);
      } catch (error) {
        this.logger.warn({ err: error }, 'could not claim webhook deliveries; trying again');
        await this.pause();
        continue;
      }
      for (const claim of claimed) this.track(this.attempt(claim));
      if (claimed.length < free) await this.pause();
    }
  }

  private track(attempt: Promise<void>): void {
    this.inFlight.add(attempt);
    attempt.finally(() => this.inFlight.delete(attempt));
  }

  private pause(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((done) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        done();
      }, this.settings.pollIntervalMs);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        done();
      };
    });
  }

  /** One attempt; never throws (a result that cannot be recorded is retried when the lease runs out). */
  private async attempt(claim: ClaimedDelivery): Promise<void> {
    const attemptedAt = new Date();
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const sent = await sendWebhook(
      {
        url: claim.url,
        headers: {
          'webhook-id': claim.message_id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(claim.secrets, claim.message_id, timestamp, claim.body),
        },
        body: claim.body,
      },
      { timeoutMs: this.settings.timeoutMs, allowPrivate: this.settings.allowPrivateAddresses },
    );
    const decision = decideAfterAttempt({
      attempt: claim.attempt,
      redelivery: claim.redelivery,
      deliveredBefore: claim.delivered_before,
      responseStatus: sent.status,
      attemptedAt,
      scheduleMs: this.settings.retryScheduleMs,
    });
    const context = {
      message_id: claim.message_id,
      endpoint_id: claim.endpoint_id,
      org_id: claim.org_id,
      attempt: claim.attempt,
      status: sent.status,
      latency_ms: sent.latencyMs,
    };
    try {
      const { disabledReason } = await this.#db.run((tx) =>
        webhookDeliveries.recordAttempt(
          tx,
          claim,
          {
            attemptedAt,
            responseStatus: sent.status,
            latencyMs: sent.latencyMs,
            error: sent.error,
            ...decision,
          },
          DISABLE_AFTER_FAILING_MS,
        ),
      );
      const outcome = attemptOutcome(sent.status, decision.delivery.nextAttemptAt, disabledReason);
      countWebhookAttempt(outcome);
      if (outcome === 'delivered') {
        this.logger.debug({ ...context, delivery: decision.delivery.status }, 'webhook attempt delivered');
      } else {
        this.logger.warn(
          {
            ...context,
            url: claim.url,
            error: sent.error,
            outcome,
            next_attempt_at: decision.delivery.nextAttemptAt?.toISOString() ?? null,
          },
          decision.delivery.nextAttemptAt
            ? 'webhook attempt failed; retrying at next_attempt_at'
            : 'webhook attempt failed; no more retries',
        );
      }
      if (disabledReason) this.logger.warn({ ...context, reason: disabledReason }, 'webhook endpoint disabled');
    } catch (error) {
      this.logger.error({ ...context, err: error }, 'could not record a webhook attempt; it is retried later');
    }
  }
}

/** An attempt's outcome for the metrics: a 2xx delivered; else the endpoint was disabled, a retry is due, or none is. */
function attemptOutcome(
  responseStatus: number | null,
  nextAttemptAt: Date | null,
  disabledReason: string | null,
): WebhookAttemptOutcome {
  if (responseStatus !== null && responseStatus >= 200 && responseStatus < 300) return 'delivered';
  if (disabledReason) return 'endpoint_disabled';
  return nextAttemptAt ? 'retry_scheduled' : 'failed';
}
