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

/**
 * The repositories, one per table (or per lock of their own; the earnings table has one per reader beside the
 * ledger's), as docs/architecture.md lists them.
 */
const REPOSITORIES = [
  'accounting',
  'adjustments',
  'admins',
  'adminSessions',
  'adminSignInFailures',
  'apiKeys',
  'audit',
  'connections',
  'credentialOrgs',
  'deals',
  'dealSnapshots',
  'dealsBulk',
  'domainEvents',
  'earnings',
  'earningsByPeriod',
  'earningsEstimates',
  'earningsList',
  'earningsOverview',
  'earningsStream',
  'earningsWrites',
  'evaluationLocks',
  'exchangeRates',
  'feedWriters',
  'identityProviders',
  'ledgerPlans',
  'inquiries',
  'inquiryComments',
  'orgs',
  'paymentRequests',
  'payments',
  'payoutSums',
  'pendingEvaluations',
  'periodReopenRequests',
  'periodStandings',
  'periods',
  'planAcceptances',
  'plans',
  'planSnapshots',
  'planWrites',
  'rateLimitCounters',
  'rateLimitLease',
  'repInvitations',
  'repManagers',
  'repQuotas',
  'repSessions',
  'repSignInLinks',
  'scenarios',
  'repTokens',
  'scimUsers',
  'sourceEvents',
  'ssoSignInAttempts',
  'statementApprovals',
  'statementReminders',
  'statementRows',
  'users',
  'webhookDeliveries',
  'webhookEndpoints',
];

/** The repositories with functions that use Prisma (admin work); every other one runs plain SQL only. */
const USING_PRISMA = [
  'adminSessions',
  'adminSignInFailures',
  'admins',
  'apiKeys',
  'audit',
  'earningsOverview',
  'exchangeRates',
  'orgs',
  'periods',
  'plans',
  'planSnapshots',
  'planWrites',
  'users',
  'webhookDeliveries',
  'webhookEndpoints',
];
const PLAIN_SQL_REPOSITORIES = REPOSITORIES.filter((name) => !USING_PRISMA.includes(name));

/** The code that runs inside a deal event's transaction (a `pg` one) or a change listener's (either runner's). */
const PIPELINE = [
  'src/services/earnings/',
  'src/services/ingestion.ts',
  'src/services/ingestion/',
  'src/services/newRepAcceptances.ts',
  'src/services/estimates.ts',
  'src/services/orgConfig.ts',
  'src/services/webhookOutbox.ts',
  'src/services/webhookAnnouncements.ts',
];

/**
 * What names a driver: Prisma's client and its generated types, `pg`, src/db's client, the pool type, and the
 * transaction runners of each driver (a service runs its statements through a `Transactor` instead).
 */
const DRIVER_NAMES: Array<{ name: string; pattern: RegExp }> = [
  { name: '@prisma/*', pattern: /from '@prisma\// },
  { name: 'generated/prisma', pattern: /generated\/prisma/ },
  { name: 'pg', pattern: /from 'pg'/ },
  { name: 'src/db/prisma.ts', pattern: /db\/prisma\.ts'/ },
  { name: 'SqlPool', pattern: /\bSqlPool\b/ },
  {
    name: 'a driver-specific runner',
    pattern:
      /\b(?:inPrismaTransaction|inTransaction|inRolledBackTransaction|databaseStatements|poolStatements|createSqlPool|prismaOf|prismaTransactor|poolTransactor)\b/,
  },
];

function read(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}

/** Each exported function of a repository: its name, its parameters and its body. */
function repositoryFunctions(name: string): Array<{ name: string; parameters: string; body: string }> {
  const text = read(`src/repositories/${name}.ts`);
  return [
    ...text.matchAll(/^export (?:async )?function (\w+)(?:<[^>]*>)?\(([\s\S]*?)\)(?:: [^\n]*)? \{\n([\s\S]*?)^\}$/gm),
  ].map((match) => ({ name: match[1] as string, parameters: match[2] as string, body: match[3] as string }));
}

/** `import * as name from '…/repositories/module.ts'` of a file: namespace → module. */
function repositoryImports(file: string): Map<string, string> {
  return new Map(
    [...read(file).matchAll(/^import \* as (\w+) from '[./]*(?:src\/)?repositories\/(\w+)\.ts';$/gm)].map((match) => [
      match[1] as string,
      match[2] as string,
    ]),
  );
}

describe('persistence rule (docs/architecture.md)', () => {
  test('only src/db and src/repositories touch Prisma', () => {
    const offenders = sourceFiles(SRC).filter(
      (file) => !file.startsWith('src/db/') && !file.startsWith('src/repositories/') && PRISMA_USE.test(read(file)),
    );
    assert.deepEqual(offenders, []);
  });

  test('every repository is listed, as the architecture document says', () => {
    const repositories = sourceFiles(join(SRC, 'repositories'))
      .map((file) => file.slice('src/repositories/'.length, -'.ts'.length))
      .filter((name) => name !== 'transaction')
      .sort();
    assert.deepEqual(repositories, [...REPOSITORIES].sort());
    const document = read('docs/architecture.md');
    for (const name of REPOSITORIES) assert.match(document, new RegExp(`\`${name}\``), name);
  });

  test('plain-SQL repositories run plain SQL only; the others are listed because they use Prisma', () => {
    for (const name of PLAIN_SQL_REPOSITORIES) {
      const text = read(`src/repositories/${name}.ts`);
      assert.doesNotMatch(text, PRISMA_USE, name);
      assert.doesNotMatch(text, /db\/prisma\.ts/, name);
    }
    for (const name of USING_PRISMA) assert.match(read(`src/repositories/${name}.ts`), /prismaOf\(/, name);
  });

  test('what runs in a deal event or a change listener calls only repository functions that run plain SQL', () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => PIPELINE.some((prefix) => file.startsWith(prefix)))
      .flatMap((file) => {
        const text = read(file);
        return [...repositoryImports(file)].flatMap(([namespace, module]) => {
          const functions = new Map(repositoryFunctions(module).map((found) => [found.name, found.body]));
          return [...text.matchAll(new RegExp(`\\b${namespace}\\.(\\w+)\\(`, 'g'))]
            .map((match) => match[1] as string)
            .filter((called) => PRISMA_USE.test(functions.get(called) ?? ''))
            .map((called) => `${file}: ${module}.${called}`);
        });
      });
    assert.deepEqual(offenders, []);
  });

  test('nothing above src/repositories and src/db names a driver: services receive the transaction port', () => {
    const layers = ['src/services/', 'src/http/', 'src/cli/', 'src/webhooks/', 'src/domain/', 'src/audit/'];
    const offenders = sourceFiles(SRC)
      .filter((file) => layers.some((layer) => file.startsWith(layer)))
      .flatMap((file) => {
        const text = read(file);
        return DRIVER_NAMES.filter((rule) => rule.pattern.test(text)).map((rule) => `${file}: ${rule.name}`);
      });
    assert.deepEqual(offenders, []);
  });

  test('nothing tells the drivers apart by the shape of a transaction', () => {
    const offenders = sourceFiles(SRC).filter((file) => /'\$\w+' in \w+/.test(read(file)));
    assert.deepEqual(offenders, []);
  });
});

describe('repository shape (docs/architecture.md)', () => {
  test('a repository is a module of functions: no classes (refusals aside) and no instances', () => {
    const offenders = REPOSITORIES.flatMap((name) =>
      [...read(`src/repositories/${name}.ts`).matchAll(/^export class (\w+)(?: extends (\w+))?/gm)]
        .filter((match) => match[2] !== 'Error')
        .map((match) => `${name}: class ${match[1]}`),
    );
    assert.deepEqual(offenders, []);
  });

  test('every function of a repository takes the Transaction first (the lease takes a connection of its own)', () => {
    const offenders = REPOSITORIES.filter((name) => name !== 'rateLimitLease').flatMap((name) =>
      repositoryFunctions(name)
        .filter((found) => /prismaOf\(|\.query</.test(found.body) || /\btx\b/.test(found.body))
        .filter((found) => !/^\s*tx: Transaction\b/.test(found.parameters))
        .map((found) => `${name}.${found.name}`),
    );
    assert.deepEqual(offenders, []);
    assert.ok(repositoryFunctions('orgs').some((found) => found.name === 'find'));
  });
});

describe('the write confirms the key (docs/architecture.md)', () => {
  test('no service calls back into HTTP: what a write found is data it returns', () => {
    const offenders = sourceFiles(join(SRC, 'services')).filter((file) => /\b(?:settle|refute)\(/.test(read(file)));
    assert.deepEqual(offenders, []);
  });

  test('nothing patches a response: no assignment to writeHead', () => {
    const offenders = sourceFiles(SRC).filter((file) => /\.writeHead\s*=[^=]/.test(read(file)));
    assert.deepEqual(offenders, []);
  });
});

describe('import direction (docs/architecture.md)', () => {
  const rules: Array<{ from: string; refused: RegExp }> = [
    { from: 'src/domain/', refused: /from '(?:\.\.\/)+(?:http|services|repositories|db|audit|cli|webhooks)\// },
    { from: 'src/services/', refused: /from '(?:\.\.\/)+(?:http|cli)\// },
    { from: 'src/audit/', refused: /from '(?:\.\.\/)+(?:http|cli)\// },
    { from: 'src/repositories/', refused: /from '(?:\.\.\/)+(?:http|services|audit|cli|webhooks)\// },
  ];
  for (const rule of rules) {
    test(`${rule.from} imports nothing matching ${rule.refused.source}`, () => {
      const offenders = sourceFiles(SRC).filter((file) => file.startsWith(rule.from) && rule.refused.test(read(file)));
      assert.deepEqual(offenders, []);
    });
  }
});

/** The classes a directory exports, errors aside (an error is thrown, not composed). */
function exportedClasses(directory: string): string[] {
  return sourceFiles(join(SRC, directory)).flatMap((file) =>
    [...read(file).matchAll(/export class (\w+)(?: extends (\w+))?/g)]
      .filter((match) => match[2] !== 'Error')
      .map((match) => match[1] as string),
  );
}

/**
 * Classes of src/services and src/audit that are not services: what a service builds for itself (a cache, the
 * announcements of one transaction), and the request log the server starts and closes beside its pools.
 */
const NOT_SERVICES = ['EarningAnnouncements', 'EnginePlanVersions', 'OrgConfigCache', 'AuditLog'];

function constructs(file: string, classes: readonly string[]): string[] {
  const text = read(file);
  return classes.filter((name) => new RegExp(`new ${name}\\b`).test(text)).map((name) => `${file}: new ${name}`);
}

describe('composition root (docs/architecture.md)', () => {
  const services = [...exportedClasses('services'), ...exportedClasses('audit')].filter(
    (name) => !NOT_SERVICES.includes(name),
  );

  test('the classes checked are found', () => {
    for (const name of ['EarningsEngine', 'PlanRollout', 'PlanAdmin', 'PeriodAdmin', 'KeyAdmin', 'EarningsRecompute']) {
      assert.ok(services.includes(name), name);
    }
    assert.ok(services.includes('AuditLogReader'));
  });

  test('services are built in src/composition.ts only: no service builds another, no command or handler one', () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => file !== 'src/composition.ts')
      .flatMap((file) => constructs(file, services));
    assert.deepEqual(offenders, []);
  });

  test('the tests build services through the same composition (test/helpers/services.ts)', () => {
    const offenders = sourceFiles(join(ROOT, 'test')).flatMap((file) => constructs(file, services));
    assert.deepEqual(offenders, []);
  });

  test('the bench (bench/services.ts) and the scripts build services through the same composition', () => {
    const files = [...sourceFiles(join(ROOT, 'bench')), ...sourceFiles(join(ROOT, 'scripts'))];
    assert.ok(files.includes('bench/run.ts') && files.includes('scripts/console-screenshots.ts'));
    const offenders = files.flatMap((file) => constructs(file, services));
    assert.deepEqual(offenders, []);
  });

  test('no module-level service: each is built once per composition, never at the top of a module', () => {
    const offenders = sourceFiles(SRC).flatMap((file) =>
      [...read(file).matchAll(/^(?:export )?const (\w+) = new (\w+)\(/gm)]
        .filter((match) => services.includes(match[2] as string))
        .map((match) => `${file}: ${match[1]}`),
    );
    assert.deepEqual(offenders, []);
  });

  test('change listeners are required: no service defaults one to a listener that does nothing', () => {
    const offenders = sourceFiles(SRC).filter((file) => /\w+: (Deal|Plan|Period)ChangeListener = /.test(read(file)));
    assert.deepEqual(offenders, []);
  });
});
