import { createClient, defineScript } from '@redis/client';
import { WINDOW_SECONDS } from './rateLimit.ts';
import { RateLimitStoreUnavailable, type WindowCounter } from './rateLimitStore.ts';

// The `redis` rate-limit store: one atomic Lua script per request, so instances sharing the Redis count exactly
// without a database row per request. Each window's count is its own key, gone a window's length after the window ends.

const COUNT_REQUEST = defineScript({
  NUMBER_OF_KEYS: 1,
  SCRIPT: `
    local count = redis.call('INCR', KEYS[1])
    if count == 1 then redis.call('PEXPIREAT', KEYS[1], ARGV[1]) end
    return count`,
  parseCommand(parser, key: string, expireAtMs: number) {
    parser.pushKey(key);
    parser.push(String(expireAtMs));
  },
  transformReply: (reply: unknown) => Number(reply),
});

export class RedisWindowCounter implements WindowCounter {
  readonly #client;
  readonly #windowSeconds: number;

  private constructor(client: ReturnType<typeof connectable>, windowSeconds: number) {
    this.#client = client;
    this.#windowSeconds = windowSeconds;
  }

  /** Connects, and fails when Redis does not answer within a few seconds. */
  static async connect(
    url: string,
    onError: (error: Error) => void,
    windowSeconds = WINDOW_SECONDS,
  ): Promise<RedisWindowCounter> {
    const client = connectable(url);
    client.on('error', onError);
    await client.connect();
    return new RedisWindowCounter(client, windowSeconds);
  }

  async increment(keyId: string, windowStart: Date): Promise<number> {
    const startMs = windowStart.getTime();
    try {
      return await this.#client.countRequest(
        `quotient:rate:${keyId}:${startMs / 1000}`,
        startMs + 2 * this.#windowSeconds * 1000,
      );
    } catch (error) {
      throw new RateLimitStoreUnavailable('the rate-limit store (Redis) did not answer', { cause: error });
    }
  }

  async close(): Promise<void> {
    await this.#client.close();
  }
}

function connectable(url: string) {
  return createClient({
    url,
    scripts: { countRequest: COUNT_REQUEST },
    // A request fails at once while Redis is away instead of queueing until it is back.
    disableOfflineQueue: true,
    socket: { connectTimeout: 5_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
  });
}
