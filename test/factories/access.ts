import type { Database } from '../../src/db/prisma.ts';
import * as orgs from '../../src/repositories/orgs.ts';
import { databaseStatements } from '../../src/repositories/transaction.ts';
import { testServices } from '../helpers/services.ts';

let counter = 0;

export async function createOrg(db: Database, name = `Test org ${++counter}`) {
  return orgs.create(databaseStatements(db), name);
}

/** An org and an API key in it; scopes default to every scope. */
export async function createOrgWithKey(
  db: Database,
  options: { scopes?: string[]; rateLimit?: number; name?: string } = {},
) {
  const org = await createOrg(db);
  const created = await testServices({ db }).admin.keys.create({
    orgId: org.id,
    name: options.name ?? 'test key',
    scopes: (options.scopes ?? ['deals:read', 'deals:write', 'earnings:read', 'plans:read']).join(','),
    ...(options.rateLimit === undefined ? {} : { rateLimit: String(options.rateLimit) }),
  });
  return { org, key: created.record, rawKey: created.rawKey };
}
