#!/usr/bin/env node
// The `quotient` command. Runs the TypeScript sources directly: Node 24 (the project's pinned runtime,
// installed by `npm ci`) strips types itself, so there is no build step between a change and a run.
import '../src/cli/main.ts';
