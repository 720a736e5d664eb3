import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/db/prisma.ts';
import { testServices } from '../helpers/services.ts';

let counter = 0;

/** An admin account of the org (role admin unless given), created as `quotient admins create` does. */
export async function createAdmin(db: Database, orgId: string, role: 'admin' | 'viewer' = 'admin') {
  // Unique across the run's workers too: each worker counts from 0, so two may reach one count in one millisecond.
  const email = `admin-${randomUUID()}-${++counter}@example.com`;
  const { admin, password } = await testServices({ db }).admin.admins.create({
    orgId,
    email,
    role,
    displayName: `Admin ${counter}`,
  });
  return { admin, email, password };
}
