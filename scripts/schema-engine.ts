// Prisma's schema engine (the thing behind `prisma migrate`), run from its WebAssembly build so that no
// native engine has to be downloaded: Prisma's binary host is unreachable here, on CI and on our users'
// air-gapped servers. Used only by developer tooling (scripts/prisma-engine.ts); the server applies
// migrations with src/db/migrate.ts and never loads this.
//
// The engine talks to PostgreSQL through a "migration-aware" driver adapter factory. We use
// @prisma/adapter-pg, but 7.10.0 needs four corrections to serve the engine, each explained where it is
// made: catalog columns of type "char", scripts split on ";", and the shadow database's address and
// clean-up. Prisma says the wasm package's API may change without warning: it is pinned in package.json,
// and test/integration/migrations.test.ts drives it end to end (including a drift check that must fail).

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQueryable,
} from '@prisma/driver-adapter-utils';
import type { MigrationList, SchemaEngine, SchemaFilter } from '@prisma/schema-engine-wasm';
import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg';
import pg from 'pg';

export type { SchemaEngine } from '@prisma/schema-engine-wasm';

/** No externally managed tables or enums (prisma.config.ts declares none). */
export const NO_FILTER: SchemaFilter = { externalTables: [], externalEnums: [] };

export const LOCKFILE_NAME = 'migration_lock.toml';

// --- Loading the WebAssembly module -----------------------------------------------------------------

// The package's entry (schema_engine.js) does `import * as wasm from "./schema_engine_bg.wasm"`, which
// needs WebAssembly ES-module integration in Node. Instead we instantiate the .wasm ourselves against
// the package's own JS glue, which is exactly what that entry does once the import works.
let loaded = false;

/** Timers the engine started; unref'd when a session closes. */
const pendingTimers = new Set<NodeJS.Timeout>();

/** Message of the last Rust panic inside the engine, reported by the glue through a global registry. */
let lastPanic: string | undefined;

// The repo's tsconfig has no DOM lib, so TypeScript does not know the WebAssembly global: type what we use.
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, object>) => { exports: unknown };
}

function loadWasm(): void {
  if (loaded) return;
  (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY = {
    set_message(message: string) {
      lastPanic = message;
    },
  };
  const require = createRequire(import.meta.url);
  // Resolve through the package's exports map, then take the sibling file (the .wasm is not exported).
  const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const bytes = readFileSync(gluePath.replace(/schema_engine_bg\.js$/, 'schema_engine_bg.wasm'));
  const module = new wasmApi.Module(bytes);
  // Every import of the module comes from "./schema_engine_bg.js", i.e. the glue.
  const imports: Record<string, unknown> = { ...glue };
  // The engine's timeouts (e.g. 10 s around taking the migration advisory lock) become setTimeout calls
  // it never clears. We keep their handles so that closing the engine can unref them: otherwise the
  // process lingers until they fire.
  for (const [name, original] of Object.entries(glue)) {
    if (!name.startsWith('__wbg_setTimeout_') || typeof original !== 'function') continue;
    const setTimer = original as (...args: unknown[]) => unknown;
    imports[name] = (...args: unknown[]) => {
      const timer = setTimer(...args);
      pendingTimers.add(timer as NodeJS.Timeout);
      return timer;
    };
  }
  const instance = new wasmApi.Instance(module, { './schema_engine_bg.js': imports });
  const exports = instance.exports as { __wbindgen_start(): void };
  glue.__wbg_set_wasm(exports);
  exports.__wbindgen_start();
  loaded = true;
}

/** Version of the loaded engine build, e.g. "0edf323efd1d98336f3f0a68684b56f689b900d3". */
export function engineVersion(): string {
  loadWasm();
  return glue.version();
}

// --- The PostgreSQL adapter factory -----------------------------------------------------------------

/**
 * PostgreSQL's internal single-byte type `"char"` (OID 18). The engine reads catalog columns of this type
 * (pg_class.relkind, pg_constraint.contype, ...) and expects them as the driver-adapter type Character,
 * which is what the native engine's own driver produces. adapter-pg 7.10.0 has no mapping for OID 18 and
 * fails the query ("Column type 'char' could not be deserialized"). Mapping it to Text is not enough
 * either: the describer reads contype with a char getter and panics on text, e.g. on PostgreSQL 18, which
 * lists NOT NULL constraints in pg_constraint (contype 'n').
 *
 * So, in two steps: this pg.Client subclass tells adapter-pg the column is text (OID 25, same text-format
 * value: one character) and remembers which columns those were, keyed by the result's rows array, which
 * adapter-pg hands on unchanged; withCharColumns() then marks those columns Character for the engine.
 */
const CHAR_OID = 18;
const TEXT_OID = 25;
const charColumnsOf = new WeakMap<object, number[]>();

class CharAwareClient extends pg.Client {}
const baseQuery = pg.Client.prototype.query as unknown as (this: pg.Client, ...args: unknown[]) => unknown;
CharAwareClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const callback = args.at(-1);
  // pg.Pool#query calls client.query(config, values, callback); adapter-pg's transactions use promises.
  if (typeof callback === 'function') {
    args[args.length - 1] = (error: unknown, result: unknown) =>
      callback(error, error ? result : noteCharColumns(result));
    return baseQuery.apply(this, args);
  }
  const returned = baseQuery.apply(this, args);
  return returned instanceof Promise ? returned.then(noteCharColumns) : returned;
} as unknown as pg.Client['query'];

function noteCharColumns<T>(result: T): T {
  // A multi-statement simple query resolves to an array of results.
  for (const one of Array.isArray(result) ? result : [result]) {
    const { fields, rows } = (one ?? {}) as { fields?: { dataTypeID: number }[]; rows?: object };
    const indexes: number[] = [];
    fields?.forEach((field, index) => {
      if (field.dataTypeID !== CHAR_OID) return;
      field.dataTypeID = TEXT_OID;
      indexes.push(index);
    });
    if (indexes.length > 0 && rows) charColumnsOf.set(rows, indexes);
  }
  return result;
}

function withCharColumns<Q extends SqlQueryable>(queryable: Q): Q {
  const queryRaw = queryable.queryRaw.bind(queryable);
  queryable.queryRaw = async (query) => {
    const result = await queryRaw(query);
    for (const index of charColumnsOf.get(result.rows) ?? []) result.columnTypes[index] = ColumnTypeEnum.Character;
    return result;
  };
  return queryable;
}

/**
 * One adapter-pg adapter, corrected for the engine: "char" columns (above), and executeScript. The engine
 * replays each migration into the shadow database with executeScript; adapter-pg splits the script on
 * every ";" (breaking a migration with a semicolon in a string, a comment or a function body), while the
 * native engine sends it as one simple query, i.e. one implicit transaction. So do we.
 */
async function connect(config: pg.PoolConfig, schema: string | undefined): Promise<SqlDriverAdapter> {
  // (adapter-pg bundles its own @types/pg, hence the cast.)
  const poolConfig = { ...config, Client: CharAwareClient } as unknown as ConstructorParameters<typeof PrismaPg>[0];
  const adapter = await new PrismaPg(poolConfig, schema ? { schema } : undefined).connect();
  const pool = adapter.underlyingDriver();
  withCharColumns(adapter);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) => withCharColumns(await startTransaction(isolationLevel));
  adapter.executeScript = async (script: string) => {
    try {
      await pool.query(script);
    } catch (error) {
      // Map the driver error the way adapter-pg does, so the engine reports it in its usual form.
      (adapter as unknown as { onError(error: unknown): never }).onError(error);
    }
  };
  return adapter;
}

/**
 * The migration-aware factory the engine connects through. adapter-pg's own factory, built from a URL,
 * gets the shadow database wrong in two ways that this one fixes:
 * - it builds the shadow pool as `{ connectionString, database }`, and pg lets the connection string win,
 *   so the "shadow" pool is the main database and replaying migrations would run them there;
 * - its cleanup drops the shadow database before closing the shadow pool, which PostgreSQL refuses
 *   ("is being accessed by other users"), leaking one database per run.
 * Here the shadow database is a fresh `prisma_migrate_shadow_db_<uuid>`, reached by a URL whose path we
 * rewrite ourselves, and dropped only after its pool is closed.
 */
function migrationAdapterFactory(
  databaseUrl: string,
  opened: SqlDriverAdapter[],
): SqlMigrationAwareDriverAdapterFactory {
  const url = new URL(databaseUrl);
  // Prisma URLs may carry `?schema=`; pg does not know it, the adapter takes it as an option.
  const schema = url.searchParams.get('schema') ?? undefined;
  url.searchParams.delete('schema');
  const track = (adapter: SqlDriverAdapter) => {
    opened.push(adapter);
    return adapter;
  };
  return {
    provider: 'postgres',
    adapterName: '@prisma/adapter-pg',
    connect: async () => track(await connect({ connectionString: url.href }, schema)),
    connectToShadowDb: async () => {
      const name = `prisma_migrate_shadow_db_${randomUUID()}`;
      await adminQuery(url.href, `CREATE DATABASE "${name}"`);
      const shadowUrl = new URL(url.href);
      shadowUrl.pathname = `/${name}`;
      const adapter = await connect({ connectionString: shadowUrl.href }, schema);
      const closePool = adapter.dispose.bind(adapter);
      let disposed = false;
      adapter.dispose = async () => {
        if (disposed) return;
        disposed = true;
        await closePool();
        // FORCE (PostgreSQL 13+) also ends any connection the engine might still hold.
        await adminQuery(url.href, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      };
      return track(adapter);
    },
  };
}

async function adminQuery(connectionString: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// --- Opening an engine ------------------------------------------------------------------------------

export interface EngineSession {
  engine: SchemaEngine;
  /** Frees the engine, closes every pool it opened and drops any shadow database left behind. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** The database the engine connects to. Commands that need a shadow database create it beside this one. */
  databaseUrl: string;
  /** The Prisma schema the engine starts with (tells it the provider); diff targets carry their own. */
  schema?: { path: string; content: string };
  /** Receives the engine's JSON log lines (tracing), for debugging. */
  log?: (line: string) => void;
}

export async function openSchemaEngine(options: OpenOptions): Promise<EngineSession> {
  loadWasm();
  const opened: SqlDriverAdapter[] = [];
  const factory = bindMigrationAwareSqlAdapterFactory(migrationAdapterFactory(options.databaseUrl, opened));
  // `datamodels: []` crashes the engine; with no schema it must be undefined.
  const datamodels: [string, string][] | undefined = options.schema
    ? [[options.schema.path, options.schema.content]]
    : undefined;
  const engine = await glue.SchemaEngine.new({ datamodels }, (line: string) => options.log?.(line), factory);
  return {
    engine,
    close: async () => {
      engine.free();
      // The engine does not reliably dispose the adapters it got, so we do; dispose is idempotent above
      // for the shadow database, and a second pool.end() would throw, hence allSettled.
      await Promise.allSettled(opened.map((adapter) => adapter.dispose()));
      // (Sessions are used one at a time, so every engine timer left is this session's.)
      for (const timer of pendingTimers) timer.unref();
      pendingTimers.clear();
    },
  };
}

/**
 * The message of the last Rust panic in the engine. A panic inside an engine task surfaces as an uncaught
 * `RuntimeError: unreachable` with no useful text; the panic message is only available here.
 */
export function lastEnginePanic(): string | undefined {
  return lastPanic;
}

/** Turns an engine rejection into an Error with its message (and the panic message, if it panicked). */
export function engineError(error: unknown): Error {
  if (error instanceof Error) {
    if (lastPanic && !error.message.includes(lastPanic)) error.message += `\n(engine panic: ${lastPanic})`;
    return error;
  }
  return new Error(typeof error === 'string' ? error : JSON.stringify(error));
}

// --- Reading prisma/migrations ----------------------------------------------------------------------

/**
 * The migrations directory in the shape the engine expects, read exactly as the Prisma CLI reads it:
 * every sub-directory, sorted by name, with its migration.sql (or the read error), plus the lockfile.
 */
export async function readMigrationList(baseDir: string, shadowDbInitScript = ''): Promise<MigrationList> {
  const lockContent = await readFile(join(baseDir, LOCKFILE_NAME), 'utf8').catch(() => null);
  const entries = await readdir(baseDir, { withFileTypes: true }).catch(() => []);
  const migrationDirectories: MigrationList['migrationDirectories'] = [];
  for (const entry of entries.filter((one) => one.isDirectory())) {
    const content = await readFile(join(baseDir, entry.name, 'migration.sql'), 'utf8').then(
      (value) => ({ tag: 'ok' as const, value }),
      (error: Error) => ({ tag: 'error' as const, value: error.message }),
    );
    migrationDirectories.push({ path: entry.name, migrationFile: { path: 'migration.sql', content } });
  }
  migrationDirectories.sort((a, b) => a.path.localeCompare(b.path));
  return {
    baseDir,
    lockfile: { path: LOCKFILE_NAME, content: lockContent },
    migrationDirectories,
    shadowDbInitScript,
  };
}
