import { fileURLToPath } from 'node:url';
import type { Router } from 'express';
import { singlePageAppRouter } from '../singlePageApp.ts';

/** Where `npm run build:console` writes the console (index.html and hashed assets). */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

/**
 * The web console at /admin: hashed assets under /admin/assets, and index.html for every page path (the console
 * routes in the browser). /admin/v1 is the admin API, not a page.
 */
export function consoleRouter(distDir: string = CONSOLE_DIST): Router {
  return singlePageAppRouter({
    mount: '/admin',
    distDir,
    notPages: /^\/v1(\/|$)/,
    title: 'The admin console',
    notBuilt: 'The admin console is not built. Run `npm run build:console` (npm ci does it) and reload.',
  });
}
