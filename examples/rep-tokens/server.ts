// An integrator's intranet in one file (docs/rep-tokens.md): it knows who is signed in (here, REP_EXTERNAL_ID), mints
// a rep token for that rep with its own API key (scope rep_tokens:write), and serves a page that calls Quotient's
// /v1 from the browser with the token. The API key never leaves this server.
//
//   QUOTIENT_URL=http://localhost:3000 QUOTIENT_KEY=qtn_… REP_EXTERNAL_ID=rep-017 node examples/rep-tokens/server.ts
//
// Allow this page's origin first: npx quotient orgs rep-access --org ORG_ID --cors-origins http://localhost:8080

import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ExampleOptions {
  quotientUrl: string;
  apiKey: string;
  /** The intranet's signed-in person, as the CRM names them (the deals' owner_external_id). */
  repExternalId: string;
  port: number;
}

const PAGE = new URL('./index.html', import.meta.url);

/** Mints a token for the signed-in rep: POST /v1/rep-tokens with the intranet's key. */
async function mint(options: ExampleOptions): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${options.quotientUrl}/v1/rep-tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${options.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ user_external_id: options.repExternalId, ttl_seconds: 600 }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) return { status: 502, body: { error: 'could not mint a rep token', quotient: body } };
  // The page needs the token, when it expires, who it is for and where Quotient is; nothing else.
  return {
    status: 200,
    body: {
      token: body.token,
      expires_at: body.expires_at,
      user_id: body.user_id,
      quotient_url: options.quotientUrl,
    },
  };
}

export async function startExample(options: ExampleOptions): Promise<{ server: Server; url: string }> {
  const server = createServer(async (req, res) => {
    try {
      if (req.method === 'GET' && (req.url === '/' || req.url === '/index.html')) {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(await readFile(PAGE));
        return;
      }
      // A real intranet checks its own session here before minting: the token reads as this rep.
      if (req.method === 'POST' && req.url === '/token') {
        const { status, body } = await mint(options);
        res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
        res.end(JSON.stringify(body));
        return;
      }
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    } catch (error) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { QUOTIENT_URL, QUOTIENT_KEY, REP_EXTERNAL_ID, PORT } = process.env;
  if (!QUOTIENT_URL || !QUOTIENT_KEY) {
    console.error('set QUOTIENT_URL and QUOTIENT_KEY (a key with the rep_tokens:write scope)');
    process.exit(2);
  }
  const { url } = await startExample({
    quotientUrl: QUOTIENT_URL.replace(/\/$/, ''),
    apiKey: QUOTIENT_KEY,
    repExternalId: REP_EXTERNAL_ID ?? 'rep-017',
    port: Number(PORT ?? 8080),
  });
  console.log(`the intranet's pay page: ${url.replace('127.0.0.1', 'localhost')}`);
}
