import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { htmlPageSecurityHeaders } from './securityHeaders.ts';

// A browser app built by Vite (the admin console, the rep portal) allows only this server's own scripts, styles,
// images and API: no inline script, no other origin, no framing (the policy of every HTML page Quotient serves).
const PAGE_HEADERS = { ...htmlPageSecurityHeaders(), 'Cache-Control': 'no-cache' };

/** Seconds a browser is asked to wait before asking again while a build is being written. */
const UPDATING_RETRY_SECONDS = 5;

export interface SinglePageApp {
  /** Where it is served, e.g. `/admin`: `/admin` redirects to `/admin/`. */
  mount: string;
  /** Its build: index.html and hashed assets under assets/. */
  distDir: string;
  /** Paths under the mount that are not pages (an API), left to other routers. */
  notPages?: RegExp;
  /** What to answer (503) when it is not built. */
  notBuilt: string;
  /** The app's name in the page answered while a new build is being written, e.g. "The rep portal". */
  title: string;
}

/** What the build on disk is right now: its index.html when whole, else why not. */
type BuildState = { kind: 'ready'; html: string } | { kind: 'not_built' } | { kind: 'updating' };

/**
 * A single-page app: hashed assets under `<mount>/assets` cached for good, and index.html for every page path (the
 * app routes in the browser).
 *
 * The build can be rewritten under a running server (`npm ci` and `npm start` rebuild it, an upgrade in place): the
 * index.html is re-read whenever its modification time or size changes, so a page never names a bundle of the
 * previous build that is gone. While a build is incomplete (the index is missing but the build was there, or it names
 * an asset not yet written) pages answer 503 with a short "being updated" page that reloads itself, never a blank
 * page.
 */
export function singlePageAppRouter(app: SinglePageApp): Router {
  const router = express.Router();
  const indexPath = join(app.distDir, 'index.html');
  const assetsDir = join(app.distDir, 'assets');
  const assetPrefix = `${app.mount}/assets/`;
  // The index as last read, with the stamp (mtime and size) it was read at; `whole` once its assets were all seen.
  let cached: { stamp: string; html: string; whole: boolean } | undefined;
  let everBuilt = false;

  const buildState = (): BuildState => {
    let stamp: string;
    try {
      const stat = statSync(indexPath);
      stamp = `${stat.mtimeMs}:${stat.size}`;
    } catch {
      cached = undefined;
      return everBuilt || existsSync(assetsDir) ? { kind: 'updating' } : { kind: 'not_built' };
    }
    if (cached?.stamp !== stamp) {
      try {
        cached = { stamp, html: readFileSync(indexPath, 'utf8'), whole: false };
      } catch {
        cached = undefined;
        return { kind: 'updating' };
      }
    }
    if (!cached.whole) {
      const missing = assetsOf(cached.html, assetPrefix).some((asset) => !existsSync(join(assetsDir, asset)));
      if (missing) return { kind: 'updating' };
      cached.whole = true;
      everBuilt = true;
    }
    return { kind: 'ready', html: cached.html };
  };

  router.get(app.mount, (req, res, next) => (req.path === app.mount ? res.redirect(301, `${app.mount}/`) : next()));
  router.use(
    `${app.mount}/assets`,
    express.static(assetsDir, {
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
    const state = buildState();
    if (state.kind === 'not_built') {
      res.status(503).type('text').send(app.notBuilt);
      return;
    }
    if (state.kind === 'updating') {
      res.status(503).set('Retry-After', String(UPDATING_RETRY_SECONDS)).type('html').send(updatingPage(app.title));
      return;
    }
    if (req.path.includes('.')) {
      res.status(404).type('text').send('Not found');
      return;
    }
    res.type('html').send(state.html);
  });
  return router;
}

/** The file names under `<mount>/assets/` that an index.html loads (its scripts, styles, preloads). */
export function assetsOf(html: string, assetPrefix: string): string[] {
  const names = new Set<string>();
  for (const match of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
    const url = match[1] as string;
    if (url.startsWith(assetPrefix))
      names.add(decodeURIComponent(url.slice(assetPrefix.length).split(/[?#]/)[0] ?? ''));
  }
  return [...names].filter((name) => name !== '' && !name.includes('..'));
}

function updatingPage(title: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta http-equiv="refresh" content="${UPDATING_RETRY_SECONDS}" />
    <title>Being updated · Quotient</title>
  </head>
  <body>
    <main>
      <h1>${title} is being updated</h1>
      <p>A new version is being installed on this server. This page reloads by itself in a few seconds.</p>
    </main>
  </body>
</html>
`;
}
