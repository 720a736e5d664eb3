#!/usr/bin/env node
// The `quotient` command. Runs the TypeScript sources directly: Node 24 (the project's pinned runtime,
// installed by `npm ci`) strips types itself, so there is no build step between a change and a run.
// Node's compile cache (in the system's temporary directory, keyed by the file's content and Node's version)
// keeps the stripped and compiled modules between runs: it halves the CPU a command spends starting up.
import module from 'node:module';

module.enableCompileCache?.();
await import('../src/cli/main.ts');
