import { fileURLToPath } from 'node:url';
import type { Router } from 'express';
import { singlePageAppRouter } from '../singlePageApp.ts';

/** Where `npm run build:portal` writes the portal (index.html and hashed assets). */
export const PORTAL_DIST = fileURLToPath(new URL('../../../portal/dist/', import.meta.url));

/** The rep portal's pages at /portal/, built like the console (portal/vite.config.ts). */
export function portalAppRouter(distDir: string = PORTAL_DIST): Router {
  return singlePageAppRouter({
    mount: '/portal',
    distDir,
    title: 'The rep portal',
    notBuilt: 'The rep portal is not built. Run `npm run build:portal` (npm ci does it) and reload.',
  });
}
