import { buildBrowserApp, buildConsole } from '../helpers/browser.ts';

// vitest's globalSetup: the admin console and the rep portal are built from their sources once, before any worker
// starts. Built per test file instead, two files running at once (two browser tests) rebuilt a dist/ under each
// other's server, which could then serve a page whose scripts were being replaced.
export default function setup(): void {
  buildConsole();
  buildBrowserApp('portal/vite.config.ts');
}
