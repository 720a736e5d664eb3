import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { afterEach, describe, test } from 'vitest';
import { portalAppRouter } from '../../src/http/portal/app.ts';
import { assetsOf } from '../../src/http/singlePageApp.ts';

// An upgrade in place: `npm ci` or `npm start` rewrites portal/dist (or console/dist) under a running server. The
// server must serve the new index.html (whose bundle exists), never the old one whose bundle is gone, and while the
// build is half written answer "being updated", never a blank page.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function distDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spa-'));
  dirs.push(dir);
  return dir;
}

const indexOf = (bundle: string) =>
  `<!doctype html><html><head><script type="module" crossorigin src="/portal/assets/${bundle}.js"></script>` +
  `<link rel="stylesheet" crossorigin href="/portal/assets/${bundle}.css"></head><body><div id="app"></div></body></html>`;

function writeBuild(dir: string, bundle: string, options: { index?: boolean; assets?: boolean; at?: number } = {}) {
  mkdirSync(join(dir, 'assets'), { recursive: true });
  if (options.assets !== false) {
    writeFileSync(join(dir, 'assets', `${bundle}.js`), `console.log(${JSON.stringify(bundle)});`);
    writeFileSync(join(dir, 'assets', `${bundle}.css`), 'body{}');
  }
  if (options.index !== false) {
    writeFileSync(join(dir, 'index.html'), indexOf(bundle));
    // Two builds within the file system's time resolution still differ: the test gives each its own time.
    const at = new Date(options.at ?? Date.now());
    utimesSync(join(dir, 'index.html'), at, at);
  }
}

function portal(dir: string) {
  return express().use(portalAppRouter(dir));
}

describe('the single-page apps across a rebuild', () => {
  test('a rebuilt index.html is served at once, and its bundle loads', async () => {
    const dir = distDir();
    writeBuild(dir, 'index-old1', { at: 1_700_000_000_000 });
    const app = portal(dir);
    const first = await request(app).get('/portal/history');
    assert.equal(first.status, 200);
    assert.match(first.text, /index-old1\.js/);

    rmSync(join(dir, 'assets'), { recursive: true });
    writeBuild(dir, 'index-new22', { at: 1_700_000_100_000 });
    const second = await request(app).get('/portal/history');
    assert.equal(second.status, 200);
    assert.match(second.text, /index-new22\.js/);
    assert.doesNotMatch(second.text, /index-old1/);
    assert.equal((await request(app).get('/portal/assets/index-new22.js')).status, 200);
    assert.equal((await request(app).get('/portal/assets/index-old1.js')).status, 404);
  });

  test('while a build is half written, pages answer 503 "being updated" and then the new build', async () => {
    const dir = distDir();
    writeBuild(dir, 'index-old1', { at: 1_700_000_000_000 });
    const app = portal(dir);
    assert.equal((await request(app).get('/portal/')).status, 200);

    // The build emptied the directory: no index.html yet.
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    const emptied = await request(app).get('/portal/');
    assert.equal(emptied.status, 503);
    assert.equal(emptied.headers['retry-after'], '5');
    assert.match(emptied.headers['content-type'] as string, /^text\/html/);
    assert.match(emptied.text, /The rep portal is being updated/);
    assert.match(emptied.text, /http-equiv="refresh"/);
    assert.match(emptied.headers['content-security-policy'] as string, /script-src 'self'/);

    // The index is written before its bundle is.
    writeBuild(dir, 'index-new22', { assets: false, at: 1_700_000_100_000 });
    const halfway = await request(app).get('/portal/plans');
    assert.equal(halfway.status, 503);
    assert.match(halfway.text, /being updated/);

    writeBuild(dir, 'index-new22', { index: false });
    const done = await request(app).get('/portal/plans');
    assert.equal(done.status, 200);
    assert.match(done.text, /index-new22\.js/);
  });

  test('an app never built says how to build it', async () => {
    const response = await request(portal(join(distDir(), 'missing'))).get('/portal/');
    assert.equal(response.status, 503);
    assert.match(response.text, /npm run build:portal/);
  });

  test("the assets an index names are its scripts, styles and preloads under the mount's assets", () => {
    assert.deepEqual(
      assetsOf(
        `${indexOf('index-a1')}<link rel="modulepreload" href="/portal/assets/vendor-b2.js"><link rel="icon" href="data:,">` +
          '<script src="/elsewhere/x.js"></script><a href="/portal/assets/../../etc/passwd">',
        '/portal/assets/',
      ),
      ['index-a1.js', 'index-a1.css', 'vendor-b2.js'],
    );
  });
});
