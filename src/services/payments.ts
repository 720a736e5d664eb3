import { canonicalDigest } from '../domain/json.ts';
import { keysetCursor, keysetFingerprint } from '../domain/lists/keysetCursor.ts';
import { Refusal } from '../domain/refusal.ts';
import { newId } from '../lib/ids.ts';
import type { DealRecord, StoredPayment } from '../repositories/deals.ts';
import * as deals from '../repositories/deals.ts';
import { joinFeedWriters } from '../repositories/feedWriters.ts';
import * as orgs from '../repositories/orgs.ts';
import type { PaymentFilters, PaymentRecord } from '../repositories/payments.ts';
import * as payments from '../repositories/payments.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import type { DealChangeListener } from './dealChanges.ts';
import { generatedDedupKey } from './ingestion/applyStep.ts';

// The customer's payments against deals (docs/plan-features.md, "Payments: the customer's money"). Recording or
// voiding one is one READ COMMITTED transaction, as a deal event is: the transaction joins the feed writers, locks the
// deal's row (payments and events of one deal queue there), writes the payment, a source event and a domain event
// (`deal.payment_recorded` / `deal.payment_voided`), sets the deal's `payments` and hands the change to the deal-change
// listener (the deal.updated webhook, then the earnings engine), so the release lines of chips paid on cash are in
// the same commit. A refused payment writes nothing.

export interface PaymentInput {
  external_id: string;
  deal_external_id: string;
  amount_cents: number;
  currency?: string;
  received_on: string;
}

export interface PaymentRecordingResult {
  kind: 'recorded' | 'replayed';
  payment: PaymentRecord;
}

export interface PaymentPage {
  payments: PaymentRecord[];
  nextCursor: string | null;
}

export const PAYMENT_CURSOR = keysetCursor({ idPrefix: 'pay', timeMember: 'c' });

export class PaymentDesk {
  readonly #pool: Transactor;
  readonly #listener: DealChangeListener;

  constructor(pool: Transactor, listener: DealChangeListener) {
    this.#pool = pool;
    this.#listener = listener;
  }

  /**
   * Records the payment, idempotent on its external id: the same body again is a replay (nothing written), another
   * body `dedup_conflict`. A deal the org does not have is `unknown_deal`; a currency other than the deal's is
   * `invalid_body`.
   */
  record(
    orgId: string,
    request: { keyId: string | null; body: PaymentInput; rawBody: string; receivedAt: Date },
  ): Promise<PaymentRecordingResult> {
    const { body } = request;
    const digest = canonicalDigest(body);
    return this.#pool.run(async (tx) => {
      const [, deal] = await Promise.all([
        joinFeedWriters(tx, orgId),
        deals.lockByExternalId(tx, orgId, body.deal_external_id),
      ]);
      // A payment recorded before answers first, whatever became of its deal since.
      const earlier = await payments.findByExternalId(tx, orgId, body.external_id);
      if (earlier) return replayOf(earlier, digest);
      if (!deal || deal.version === 0) {
        throw new Refusal(
          'unknown_deal',
          `deal_external_id: no deal ${body.deal_external_id} in this org; send its deal events first`,
        );
      }
      if (body.currency !== undefined && body.currency !== deal.currency) {
        throw new Refusal(
          'invalid_body',
          `currency: must be the deal's currency ${deal.currency}; payments are in the deal's currency`,
        );
      }
      const id = newId('pay');
      const domainEventId = newId('de');
      const inserted = await payments.insert(tx, orgId, {
        id,
        externalId: body.external_id,
        dealId: deal.id,
        amountCents: body.amount_cents,
        currency: deal.currency,
        receivedOn: body.received_on,
        bodyDigest: digest,
        domainEventId,
      });
      if (!inserted) {
        // A concurrent request with the same external id committed first: compare with it.
        const taken = await payments.findByExternalId(tx, orgId, body.external_id);
        if (!taken) throw new Error(`payment ${body.external_id} of org ${orgId} is taken but not visible`);
        return replayOf(taken, digest);
      }
      const stored: StoredPayment = {
        id,
        external_id: body.external_id,
        amount_cents: body.amount_cents,
        received_on: body.received_on,
      };
      await this.#apply(tx, orgId, deal, {
        keyId: request.keyId,
        rawBody: request.rawBody,
        digest,
        receivedAt: request.receivedAt,
        domainEventId,
        type: 'deal.payment_recorded',
        payments: ordered([...(deal.payments ?? []), stored]),
      });
      const payment = await payments.findById(tx, orgId, id);
      if (!payment) throw new Error(`payment ${id} of org ${orgId} was recorded but is not visible`);
      return { kind: 'recorded', payment };
    });
  }

  /**
   * Voids the payment: it no longer counts, and the deal's lines are evaluated without it. A voided payment is
   * answered as it is; one the org does not have is `not_found`.
   */
  void(orgId: string, request: { keyId: string | null; id: string; receivedAt: Date }): Promise<PaymentRecord> {
    return this.#pool.run(async (tx) => {
      const [, found] = await Promise.all([joinFeedWriters(tx, orgId), payments.findById(tx, orgId, request.id)]);
      if (!found) throw new Refusal('not_found', `payment ${request.id} not found`);
      if (found.voided_at !== null) return found;
      const deal = await payments.lockDealById(tx, orgId, found.deal_id);
      if (!deal) throw new Error(`deal ${found.deal_id} of payment ${found.id} does not exist`);
      const domainEventId = newId('de');
      // Under the deal's lock: a concurrent void that came first leaves nothing to do.
      if (!(await payments.markVoided(tx, orgId, found.id, domainEventId))) {
        return (await payments.findById(tx, orgId, found.id)) as PaymentRecord;
      }
      const body = { void_payment_id: found.id, external_id: found.external_id };
      await this.#apply(tx, orgId, deal, {
        keyId: request.keyId,
        rawBody: JSON.stringify(body),
        digest: canonicalDigest(body),
        receivedAt: request.receivedAt,
        domainEventId,
        type: 'deal.payment_voided',
        // Kept, marked voided: its period's release line stays and takes back what it released.
        payments: (deal.payments ?? []).map((payment) =>
          payment.id === found.id ? { ...payment, voided: true as const } : payment,
        ),
      });
      return (await payments.findById(tx, orgId, found.id)) as PaymentRecord;
    });
  }

  get(orgId: string, id: string): Promise<PaymentRecord> {
    return this.#pool.run(async (tx) => {
      const found = await payments.findById(tx, orgId, id);
      if (!found) throw new Refusal('not_found', `payment ${id} not found`);
      return found;
    });
  }

  /** Keyset pages in (created_at, id) order; a cursor issued for other filters is `invalid_body`. */
  listPage(orgId: string, query: { filters: PaymentFilters; limit: number; cursor?: string }): Promise<PaymentPage> {
    const fingerprint = keysetFingerprint(orgId, {
      deal_id: query.filters.dealId ?? null,
      deal_external_id: query.filters.dealExternalId ?? null,
    });
    const from = query.cursor === undefined ? null : PAYMENT_CURSOR.decode(query.cursor, fingerprint);
    return this.#pool.run(async (tx) => {
      const rows = await payments.listAfter(tx, orgId, query.filters, from, query.limit + 1);
      const page = PAYMENT_CURSOR.page(rows, query.limit, fingerprint, (row) => ({ at: row.created_at, id: row.id }));
      return { payments: page.items, nextCursor: page.nextCursor };
    });
  }

  async #apply(
    tx: Transaction,
    orgId: string,
    deal: DealRecord,
    change: {
      keyId: string | null;
      rawBody: string;
      digest: string;
      receivedAt: Date;
      domainEventId: string;
      type: 'deal.payment_recorded' | 'deal.payment_voided';
      payments: StoredPayment[];
    },
  ): Promise<void> {
    const [stages, config] = await Promise.all([payments.stagesOf(tx, orgId), orgs.loadConfig(tx, orgId)]);
    const applied = await payments.applyPayments(tx, orgId, {
      sourceEventId: newId('se'),
      keyId: change.keyId,
      dedupKey: generatedDedupKey(deal.external_id, change.receivedAt),
      rawBody: change.rawBody,
      bodyDigest: change.digest,
      receivedAt: change.receivedAt,
      domainEventId: change.domainEventId,
      deal,
      type: change.type,
      hint: change.type === 'deal.payment_recorded' ? 'payment' : 'payment_void',
      payments: change.payments,
    });
    await this.#listener.onDealChanged(tx, {
      org: { id: orgId, stages, config },
      before: deal,
      after: applied.deal,
      domainEvent: applied.domainEvent,
    });
  }
}

function replayOf(payment: PaymentRecord, digest: string): PaymentRecordingResult {
  if (payment.body_digest !== digest) {
    throw new Refusal('dedup_conflict', `payment ${payment.external_id} was already recorded with a different body`);
  }
  return { kind: 'replayed', payment };
}

/** Oldest first: by the day received, then by id (time-ordered: the order they were recorded in). */
function ordered(list: StoredPayment[]): StoredPayment[] {
  return [...list].sort((a, b) =>
    a.received_on < b.received_on ? -1 : a.received_on > b.received_on ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
}
