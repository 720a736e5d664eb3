import type { WebhookMessageType } from '../domain/webhooks/kinds.ts';
import type { OrgConfig } from '../repositories/orgs.ts';
import * as orgs from '../repositories/orgs.ts';
import type { Transaction } from '../repositories/transaction.ts';

// Each org's configuration, read once per change rather than once per deal event. Exact: an event's first
// statement reads the org's config_version, and the copy held here is used only when it is of that version;
// otherwise it is read again inside the event's transaction. A plan, endpoint or stage-list change bumps the
// version in its own transaction, so the first event whose first statement starts after it commits sees it, on
// every instance.

const MAX_ORGS = 10_000;

export class OrgConfigCache {
  readonly #configs = new Map<string, OrgConfig>();

  /** The org's configuration at `version` (or newer, when it changed since the caller read the version). */
  async at(tx: Transaction, orgId: string, version: number): Promise<OrgConfig> {
    const held = this.#configs.get(orgId);
    if (held?.version === version) return held;
    const loaded = await orgs.loadConfig(tx, orgId);
    if (!held || loaded.version > held.version) {
      if (!held && this.#configs.size >= MAX_ORGS) this.#configs.clear();
      this.#configs.set(orgId, loaded);
    }
    return loaded;
  }
}

/** The org's enabled endpoints that take `type`, by id. */
export function subscribedEndpoints(config: OrgConfig, type: WebhookMessageType): string[] {
  return config.endpoints
    .filter((endpoint) => endpoint.events.length === 0 || endpoint.events.includes(type))
    .map((endpoint) => endpoint.id);
}
