import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { htmlPageSecurityHeaders } from './securityHeaders.ts';

// A browser app built by Vite (the admin console, the rep portal) allows only this server's own scripts, styles,
// images and API: no inline script, no other origin, no framing (the policy of every HTML page Quotient serves).
const PAGE_HEADERS = { ...htmlPageSecurityHeaders(), 'Cache-Control': 'no-cache' };

export interface SinglePageApp {
  /** Where it is served, e.g. `/admin`: `/admin` redirects to `/admin/`. */
  mount: string;
  /** Its build: index.html and hashed assets under assets/. */
  distDir: string;
  /** Paths under the mount that are not pages (an API), left to other routers. */
  notPages?: RegExp;
  /** What to answer (503) when it is not built. */
  notBuilt: string;
}

/**
 * A single-page app: hashed assets under `<mount>/assets` cached for good, and index.html for every page path (the
 * app routes in the browser).
 */
export function singlePageAppRouter(app: SinglePageApp): Router {
  const router = express.Router();
  const indexPath = join(app.distDir, 'index.html');
  let index: string | undefined;
  const readIndex = () => {
    index ??= existsSync(indexPath) ? readFileSync(indexPath, 'utf8') : undefined;
    return index;
  };

  router.get(app.mount, (req, res, next) => (req.path === app.mount ? res.redirect(301, `${app.mount}/`) : next()));
  router.use(
    `${app.mount}/assets`,
    express.static(join(app.distDir, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );
  router.get(`${app.mount}/{*page}`, (req: Request, res: Response, next) => {
    const below = req.path.slice(app.mount.length);
    if (app.notPages?.test(below)) return next();
    res.set(PAGE_HEADERS);
    const html = readIndex();
    if (!html) {
      res.status(503).type('text').send(app.notBuilt);
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
