import { createRequire } from 'node:module';
import { Router as createRouter, type Router } from 'express';
import { htmlPageSecurityHeaders } from './securityHeaders.ts';

// The API reference at /docs, rendered in the browser by Redoc from /v1/openapi.json. Every asset is served
// from this process (no CDN), so the page works on an air-gapped network.

const redocBundle = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Quotient API reference</title>
    <style>body { margin: 0; padding: 0; }</style>
  </head>
  <body>
    <redoc spec-url="/v1/openapi.json" hide-download-button="false"></redoc>
    <script src="/docs/redoc.standalone.js"></script>
  </body>
</html>
`;

// Redoc injects its styles as <style> elements and runs its search index in a worker made from a blob: URL.
const DOCS_PAGE_HEADERS = htmlPageSecurityHeaders({
  'style-src': "'self' 'unsafe-inline'",
  'worker-src': "'self' blob:",
});

export function docsRouter(): Router {
  const router = createRouter();
  router.get('/docs', (_req, res) => {
    res.type('html').set('Cache-Control', 'no-cache').set(DOCS_PAGE_HEADERS).send(PAGE);
  });
  router.get('/docs/redoc.standalone.js', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=86400').sendFile(redocBundle);
  });
  return router;
}
