import { parseDealEvent } from '../../src/domain/deals/event.ts';
import type { IngestRequest } from '../../src/services/ingestion.ts';

/** A deal event as the pipeline takes it in process (no HTTP, no key): parsed, with its body as sent. */
export function ingestRequest(orgId: string, body: object): IngestRequest {
  return {
    orgId,
    keyId: null,
    event: parseDealEvent(body),
    body,
    rawBody: JSON.stringify(body),
    receivedAt: new Date(),
  };
}
