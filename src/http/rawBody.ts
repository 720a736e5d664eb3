import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';

// The exact bytes of a JSON request body, kept by express.json's `verify` hook for handlers that store the body
// as received (deal events keep it in their source event).

const RAW_BODY = Symbol('rawBody');

type WithRawBody = IncomingMessage & { [RAW_BODY]?: Buffer };

/** express.json `verify` hook: keeps a reference to the buffer it parsed (no copy). */
export function keepRawBody(req: IncomingMessage, _res: unknown, buffer: Buffer): void {
  (req as WithRawBody)[RAW_BODY] = buffer;
}

/** The body text as received, decoded with its declared charset (a byte order mark is dropped). */
export function rawBodyOf(req: Request): string {
  const buffer = (req as WithRawBody)[RAW_BODY];
  if (!buffer) return JSON.stringify(req.body);
  const charset = /charset=["']?([\w-]+)/i.exec(req.get('content-type') ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(buffer);
  } catch {
    return new TextDecoder().decode(buffer);
  }
}
