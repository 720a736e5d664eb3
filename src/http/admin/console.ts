import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response, type Router } from 'express';
import { htmlPageSecurityHeaders } from '../securityHeaders.ts';

/** Where `npm run build:console` writes the console (index.html and hashed assets). */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

// The console's pages allow only this server's own scripts, styles, images and API: no inline script, no other
// origin, no framing (the policy of every HTML page Quotient serves).
const CONSOLE_PAGE_HEADERS = { ...htmlPageSecurityHeaders(), 'Cache-Control': 'no-cache' };

function pageHeaders(res: Response): void {
  res.set(CONSOLE_PAGE_HEADERS);
}

/**
 * The web console at /admin: hashed assets under /admin/assets, and index.html for every page path (the console
 * routes in the browser). /admin/v1 is the admin API, not a page.
 */
export function consoleRouter(distDir: string = CONSOLE_DIST): Router {
  const router = express.Router();
  const indexPath = join(distDir, 'index.html');
  let index: string | undefined;
  const readIndex = () => {
    index ??= existsSync(indexPath) ? readFileSync(indexPath, 'utf8') : undefined;
    return index;
  };

  router.get(/^\/admin$/, (_req, res) => res.redirect(301, '/admin/'));
  router.use(
    '/admin/assets',
    express.static(join(distDir, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );
  router.get(/^\/admin\/(?!v1(\/|$)).*/, (req: Request, res: Response) => {
    pageHeaders(res);
    const html = readIndex();
    if (!html) {
      res
        .status(503)
        .type('text')
        .send('The admin console is not built. Run `npm run build:console` (npm ci does it) and reload.');
      return;
    }
    if (req.path.includes('.')) {
      res.status(404).type('text').send('Not found');
      return;
    }
    res.type('html').send(html);
  });
  return router;
}
