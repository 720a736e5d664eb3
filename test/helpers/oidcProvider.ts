import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

// A real OpenID provider for the sign-in tests: panva's certified `oidc-provider` on a loopback port, with its own
// login and consent pages (any password signs in a known login). Only one thing is added around it: a test can
// have the next token response's ID token rewritten (claims changed, re-signed with the provider's key or another),
// to check each refusal of the relying party against an otherwise real exchange.

export interface TestAccount {
  email: string;
  email_verified?: boolean;
  name?: string;
  crm_owner_id?: string;
}

type Claims = Record<string, unknown>;

export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by login, as typed on the provider's login page. */
  accounts: Map<string, TestAccount>;
  /**
   * The next ID token the token endpoint answers is rewritten: its claims through `change`, then signed with the
   * provider's own key or with a stranger's key under the provider's key id.
   */
  rewriteNextIdToken(change: (claims: Claims) => Claims, signer?: 'provider' | 'stranger'): void;
  close(): Promise<void>;
}

function rsaKey(): KeyObject {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
}

const KEY_ID = 'test-signing-key';

function resign(idToken: string, change: (claims: Claims) => Claims, key: KeyObject): string {
  const [header, payload] = idToken.split('.') as [string, string];
  const claims = change(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Claims);
  const signingInput = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${signingInput}.${sign('sha256', Buffer.from(signingInput), key).toString('base64url')}`;
}

/** Holds the token endpoint's answer, rewrites its `id_token`, then sends it. */
function rewriteResponse(res: ServerResponse, rewrite: (idToken: string) => string): void {
  const chunks: Buffer[] = [];
  const end = res.end.bind(res) as (body: string) => ServerResponse;
  res.write = ((chunk: Buffer | string) => {
    chunks.push(Buffer.from(chunk));
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: Buffer | string) => {
    if (chunk) chunks.push(Buffer.from(chunk));
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id_token?: string };
    if (body.id_token) body.id_token = rewrite(body.id_token);
    const text = JSON.stringify(body);
    res.setHeader('content-length', Buffer.byteLength(text));
    return end(text);
  }) as typeof res.end;
}

export async function startTestIdentityProvider(options: { redirectUri: string }): Promise<TestIdentityProvider> {
  const providerKey = rsaKey();
  const strangerKey = rsaKey();
  const accounts = new Map<string, TestAccount>();
  const clientId = 'quotient-test-client';
  const clientSecret = 'quotient-test-client-secret-0123456789';
  let pendingRewrite: ((idToken: string) => string) | undefined;

  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [{ ...(providerKey.export({ format: 'jwk' }) as object), kid: KEY_ID, alg: 'RS256', use: 'sig' }] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'crm_owner_id'] },
    // Every claim of the scopes asked goes in the ID token, which is where the relying party reads them.
    conformIdTokenClaims: false,
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: () => ({ sub, email_verified: true, ...account }) } : undefined;
    },
    pkce: { required: () => true },
    cookies: { keys: ['test-provider-cookie-key'] },
    features: { devInteractions: { enabled: true } },
  });
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const rewrite = pendingRewrite;
    if (rewrite && req.method === 'POST' && req.url?.startsWith('/token')) {
      pendingRewrite = undefined;
      rewriteResponse(res, rewrite);
    }
    callback(req, res);
  });

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    rewriteNextIdToken(change, signer = 'provider') {
      pendingRewrite = (idToken) => resign(idToken, change, signer === 'provider' ? providerKey : strangerKey);
    },
    close: () =>
      new Promise<void>((closed, failed) => {
        server.closeAllConnections();
        server.close((error) => (error ? failed(error) : closed()));
      }),
  };
}
