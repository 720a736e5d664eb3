import type { Database } from '../../src/db/prisma.ts';
import { testServices } from '../helpers/services.ts';

/** An endpoint of the org; private addresses allowed, as in local development. Returns it with its secret. */
export async function createEndpoint(db: Database, orgId: string, url: string, events?: string[]) {
  return testServices({ db }).admin.webhooks.add({
    orgId,
    url,
    ...(events === undefined ? {} : { events: events.join(',') }),
  });
}
