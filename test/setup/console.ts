import { buildConsole } from '../helpers/browser.ts';

// vitest's globalSetup: the admin console is built from its sources once, before any worker starts. Built per test
// file instead, two files running at once (the two browser tests) rebuilt console/dist under each other's server,
// which could then serve a page whose scripts were being replaced.
export default function setup(): void {
  buildConsole();
}
