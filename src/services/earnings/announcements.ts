import type { EarningStatus } from '../../domain/earnings/types.ts';
import type { EarningRecord } from '../../repositories/earnings.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import { toWireEarning } from '../../wire/earnings.ts';
import { announceEarningCreated, announceEarningStatusChanged } from '../webhookAnnouncements.ts';

type EarningWebhook = 'earning.created' | 'earning.status_changed';

/**
 * Webhooks for the rows a transaction writes and moves. An org without any webhook endpoint is told to skip
 * them all (`hasEndpoints` false, read with the plans). Otherwise the first announcement of a kind tells
 * whether any endpoint takes it; when none does, the rest of the transaction skips that kind instead of asking
 * again for every row (a recompute moves thousands). An endpoint added while the transaction runs may miss
 * these rows either way: its transaction and this one are concurrent.
 */
export class EarningAnnouncements {
  readonly #tx: Transaction;
  readonly #orgId: string;
  readonly #unheard: Set<EarningWebhook>;

  constructor(tx: Transaction, orgId: string, hasEndpoints = true) {
    this.#tx = tx;
    this.#orgId = orgId;
    this.#unheard = new Set(hasEndpoints ? [] : ['earning.created', 'earning.status_changed']);
  }

  async created(earnings: readonly EarningRecord[]): Promise<void> {
    for (const earning of earnings) {
      if (this.#unheard.has('earning.created')) return;
      const message = await announceEarningCreated(this.#tx, this.#orgId, toWireEarning(earning));
      if (!message) this.#unheard.add('earning.created');
    }
  }

  async statusChanged(
    earnings: readonly EarningRecord[],
    previousStatus: (earning: EarningRecord) => EarningStatus,
  ): Promise<void> {
    const changedAt = new Date();
    for (const earning of earnings) {
      if (this.#unheard.has('earning.status_changed')) return;
      const message = await announceEarningStatusChanged(this.#tx, this.#orgId, {
        earning: toWireEarning(earning),
        previousStatus: previousStatus(earning),
        changedAt,
      });
      if (!message) this.#unheard.add('earning.status_changed');
    }
  }
}
