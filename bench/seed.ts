import { readFile } from 'node:fs/promises';
import { createPrismaClient } from '../src/db/prisma.ts';
import * as orgs from '../src/repositories/orgs.ts';
import { createSqlPool, databaseStatements } from '../src/repositories/transaction.ts';
import { LAYER_NAMES, type Layer } from './layers.ts';
import { noPlanChanges } from './listeners.ts';
import { benchServices } from './services.ts';

/** The orgs and keys of `npm run bench` (bench/run.ts). */
export interface BenchSeed {
  /** The org without a plan: the auth and ingest scenarios', and the layers'. */
  org: { id: string };
  authKey: string;
  ingestKey: string;
  /** A key of the org with product.md's four-chip plan active: the earnings scenario's. */
  planKey: string;
  /** One key per layer of BENCH_ONLY=layers, when `withLayers`. */
  layerKeys: Map<Layer, string>;
}

/**
 * The bench's orgs and keys, created through Quotient's own admin services: one key per scenario, created with the
 * API's highest limit (100,000 a minute; bench/run.ts raises it past any run's rate).
 */
export async function seedBench(databaseUrl: string, withLayers: boolean): Promise<BenchSeed> {
  const db = createPrismaClient(databaseUrl, 2);
  // Set-up runs on the Prisma client only; the pool stays unconnected.
  const setupPool = createSqlPool(databaseUrl, 1, () => {});
  const { admin: setup } = benchServices(db, setupPool);
  const org = await orgs.create(databaseStatements(db), 'Bench org');
  // One key per scenario, created with the API's highest limit (100,000 a minute; bench/run.ts raises it).
  const keyFor = async (orgId: string, name: string) =>
    (
      await setup.keys.create({
        orgId,
        name,
        scopes: 'deals:read,deals:write,earnings:read,plans:read',
        rateLimit: '100000',
      })
    ).rawKey;
  const authKey = await keyFor(org.id, 'bench auth');
  const ingestKey = await keyFor(org.id, 'bench ingest');
  // The earnings scenario's org, with product.md's plan (examples/plans/core-ae.yaml) active.
  const planOrg = await orgs.create(databaseStatements(db), 'Bench org with a plan');
  await setup.planAdmin.apply(
    {
      orgId: planOrg.id,
      text: await readFile(new URL('../examples/plans/core-ae.yaml', import.meta.url), 'utf8'),
    },
    noPlanChanges,
  );
  const planKey = await keyFor(planOrg.id, 'bench earnings');
  const layerKeys = new Map<Layer, string>();
  if (withLayers) {
    for (const layer of LAYER_NAMES) layerKeys.set(layer, await keyFor(org.id, `bench layer ${layer}`));
  }
  await setupPool.end();
  await db.$disconnect();
  return { org, authKey, ingestKey, planKey, layerKeys };
}
