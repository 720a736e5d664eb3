import type { Database } from '../../src/db/prisma.ts';
import { WebhookAdmin } from '../../src/services/webhooks.ts';

/** An endpoint of the org; private addresses allowed, as in local development. Returns it with its secret. */
export async function createEndpoint(db: Database, orgId: string, url: string, events?: string[]) {
  return new WebhookAdmin(db, { allowPrivateAddresses: true }).add({
    orgId,
    url,
    ...(events === undefined ? {} : { events: events.join(',') }),
  });
}
