// `npm run generate:prisma`: runs the Prisma CLI's `generate` without network access.
//
// On startup the Prisma CLI wants its native schema engine and downloads it from Prisma's binary host,
// which is unreachable here and on our users' air-gapped servers. `generate` never runs that engine, so
// pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing file satisfies the check. We point it at the
// WebAssembly engine's .wasm: it is pinned in package.json, always installed, and not executable, so if a
// future CLI did try to run it, it would fail loudly instead of silently doing nothing (as /bin/false
// would, which makes `migrate diff --exit-code` pass no matter what).
//
// The output (generated/prisma, committed) is deterministic: the CLI empties the output directory and
// writes the same bytes for the same schema, so running this twice leaves no git diff.
// Extra arguments are passed to `prisma generate` (e.g. `-- --schema other.prisma`).

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const cli = join(dirname(require.resolve('prisma/package.json')), 'build', 'index.js');
const placeholderEngine = join(
  dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')),
  'schema_engine_bg.wasm',
);
if (!existsSync(placeholderEngine)) throw new Error(`missing ${placeholderEngine}: are devDependencies installed?`);

const result = spawnSync(process.execPath, [cli, 'generate', ...process.argv.slice(2)], {
  cwd: root, // where prisma.config.ts is
  stdio: 'inherit',
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: placeholderEngine,
    // No version check / telemetry request, and no update banner: both would reach for the network.
    CHECKPOINT_DISABLE: '1',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  },
});
if (result.error) throw result.error;
process.exitCode = result.status ?? 1;
