import type { EarningStatus } from '../../domain/earnings/types.ts';
import type { EarningRecord } from '../../repositories/earnings.ts';
import type { OrgConfig } from '../../repositories/orgs.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import { toWireEarning } from '../../wire/earnings.ts';
import { subscribedEndpoints } from '../orgConfig.ts';
import { announceEarningCreated, announceEarningStatusChanged } from '../webhookAnnouncements.ts';

type EarningWebhook = 'earning.created' | 'earning.status_changed';

/**
 * What the caller knows of the org's webhook endpoints: the org's configuration as of the transaction's first
 * statement (a deal event's, from OrgConfigCache: nothing is read again), `false` when the org has none, or `true`
 * when they must be looked up.
 */
export type KnownEndpoints = OrgConfig | boolean;

/**
 * Webhooks for the rows a transaction writes and moves. Given the org's configuration, each kind goes to the
 * endpoints it names. Otherwise the first announcement of a kind tells whether any endpoint takes it; when none
 * does, the rest of the transaction skips that kind instead of asking again for every row (a recompute moves
 * thousands). An endpoint added while the transaction runs may miss these rows either way: its transaction and
 * this one are concurrent.
 */
export class EarningAnnouncements {
  readonly #tx: Transaction;
  readonly #orgId: string;
  readonly #config: OrgConfig | null;
  readonly #unheard: Set<EarningWebhook>;

  constructor(tx: Transaction, orgId: string, endpoints: KnownEndpoints = true) {
    this.#tx = tx;
    this.#orgId = orgId;
    this.#config = typeof endpoints === 'object' ? endpoints : null;
    this.#unheard = new Set(endpoints === false ? ['earning.created', 'earning.status_changed'] : []);
    if (this.#config) {
      for (const type of ['earning.created', 'earning.status_changed'] as const) {
        if (subscribedEndpoints(this.#config, type).length === 0) this.#unheard.add(type);
      }
    }
  }

  async created(earnings: readonly EarningRecord[]): Promise<void> {
    const endpointIds = this.#endpointIds('earning.created');
    for (const earning of earnings) {
      if (this.#unheard.has('earning.created')) return;
      const message = await announceEarningCreated(this.#tx, this.#orgId, toWireEarning(earning), endpointIds);
      if (!message) this.#unheard.add('earning.created');
    }
  }

  async statusChanged(
    earnings: readonly EarningRecord[],
    previousStatus: (earning: EarningRecord) => EarningStatus,
  ): Promise<void> {
    const changedAt = new Date();
    const endpointIds = this.#endpointIds('earning.status_changed');
    for (const earning of earnings) {
      if (this.#unheard.has('earning.status_changed')) return;
      const message = await announceEarningStatusChanged(
        this.#tx,
        this.#orgId,
        { earning: toWireEarning(earning), previousStatus: previousStatus(earning), changedAt },
        endpointIds,
      );
      if (!message) this.#unheard.add('earning.status_changed');
    }
  }

  /** The subscribed endpoints when the configuration is known; undefined: each announcement looks them up. */
  #endpointIds(type: EarningWebhook): string[] | undefined {
    return this.#config ? subscribedEndpoints(this.#config, type) : undefined;
  }
}
