import { type ClientOptions, createClient, type QuotientClient } from '../../sdk/src/index.ts';
import type { RunningServer } from '../../src/main.ts';

/**
 * The project's own SDK pointed at a test server, so that integration tests exercise the contract from
 * the client's side too. Retries keep the SDK's policy, with short backoff so that a failing test fails fast.
 */
export function sdkClient(server: RunningServer, apiKey: string, options: Partial<ClientOptions> = {}): QuotientClient {
  return createClient({ baseUrl: server.url, apiKey, backoff: { initialDelayMs: 10, maxDelayMs: 100 }, ...options });
}
