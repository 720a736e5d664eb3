import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'vitest';

// The persistence rule and the composition root of docs/architecture.md, checked on the source.

const ROOT = new URL('../../', import.meta.url).pathname;
const SRC = join(ROOT, 'src');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

const PRISMA_USE = /generated\/prisma|\$transaction|\$queryRaw|\$executeRaw|prismaOf\(|prismaOr\(/;

const PG_REPOSITORIES = [
  'deals',
  'sourceEvents',
  'domainEvents',
  'users',
  'keyAuthentication',
  'earnings',
  'planStates',
  'dealSnapshots',
  'ledgerPeriods',
  'evaluationLocks',
  'feedWriters',
  'webhookEndpoints',
  'webhookOutbox',
  'estimates',
  'ledgerReports',
  'rateLimitLease',
  'requestAudit',
  'orgConfig',
  'repManagers',
  'accounting',
];
const PRISMA_REPOSITORIES = [
  'exchangeRates',
  'orgs',
  'apiKeys',
  'audit',
  'periods',
  'plans',
  'webhooks',
  'admins',
  'reps',
];

describe('persistence rule (docs/architecture.md)', () => {
  test('only src/db and src/repositories touch Prisma', () => {
    const offenders = sourceFiles(SRC).filter(
      (file) =>
        !file.startsWith('src/db/') &&
        !file.startsWith('src/repositories/') &&
        PRISMA_USE.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    assert.deepEqual(offenders, []);
  });

  test('every repository is listed under exactly one driver, as the architecture document says', () => {
    const repositories = sourceFiles(join(SRC, 'repositories'))
      .map((file) => file.slice('src/repositories/'.length, -'.ts'.length))
      .filter((name) => name !== 'transaction')
      .sort();
    assert.deepEqual(repositories, [...PG_REPOSITORIES, ...PRISMA_REPOSITORIES].sort());
    const document = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const rows = document.split('\n');
    const row = (driver: string) => rows.find((line) => line.startsWith(`| ${driver}`)) ?? '';
    for (const name of PG_REPOSITORIES) assert.match(row('`pg`'), new RegExp(`\`${name}\``), name);
    for (const name of PRISMA_REPOSITORIES) assert.match(row('Prisma'), new RegExp(`\`${name}\``), name);
  });

  test('pg repositories run plain SQL only; Prisma repositories reach a transaction through prismaOf', () => {
    for (const name of PG_REPOSITORIES) {
      const text = readFileSync(join(SRC, 'repositories', `${name}.ts`), 'utf8');
      assert.doesNotMatch(text, PRISMA_USE, name);
      assert.doesNotMatch(text, /db\/prisma\.ts/, name);
    }
    for (const name of PRISMA_REPOSITORIES) {
      const text = readFileSync(join(SRC, 'repositories', `${name}.ts`), 'utf8');
      assert.doesNotMatch(text, /tx: Prisma\.TransactionClient/, name);
    }
  });

  test('nothing tells the drivers apart by the shape of a transaction', () => {
    const offenders = sourceFiles(SRC).filter((file) => /'\$\w+' in \w+/.test(readFileSync(join(ROOT, file), 'utf8')));
    assert.deepEqual(offenders, []);
  });
});

/** The classes a directory exports, errors aside (`new AdminError(…)` is a refusal, not a service). */
function exportedClasses(directory: string): string[] {
  return sourceFiles(join(SRC, directory)).flatMap((file) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/export class (\w+)(?: extends (\w+))?/g)]
      .filter((match) => match[2] !== 'Error')
      .map((match) => match[1] as string),
  );
}

function constructs(file: string, classes: readonly string[]): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return classes.filter((name) => new RegExp(`new ${name}\\b`).test(text)).map((name) => `${file}: new ${name}`);
}

describe('composition root (docs/architecture.md)', () => {
  const services = exportedClasses('services');
  const repositories = exportedClasses('repositories');

  test('the classes checked are found', () => {
    for (const name of ['EarningsEngine', 'PlanRollout', 'PeriodAdmin', 'KeyAdmin', 'EarningsRecompute']) {
      assert.ok(services.includes(name), name);
    }
    assert.ok(repositories.includes('OrgRepository'));
  });

  test('services are built in src/composition.ts only, outside src/services', () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => !file.startsWith('src/services/') && file !== 'src/composition.ts')
      .flatMap((file) => constructs(file, services));
    assert.deepEqual(offenders, []);
  });

  test('admin commands and HTTP handlers build no service and no repository: they call the composed use cases', () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => file.startsWith('src/cli/') || file.startsWith('src/http/'))
      .flatMap((file) => constructs(file, [...services, ...repositories]));
    assert.deepEqual(offenders, []);
  });

  test('change listeners are required: no service defaults one to a listener that does nothing', () => {
    const offenders = sourceFiles(SRC).filter((file) =>
      /\w+: (Deal|Plan|Period)ChangeListener = /.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    assert.deepEqual(offenders, []);
  });
});
