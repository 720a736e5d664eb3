import type { components } from '../../generated/openapi.ts';
import type { RepTokenRecord } from '../repositories/repTokens.ts';

type RepToken = components['schemas']['RepToken'];

/** A rep token as the API shows it: never its secret (only the mint's answer adds it). */
export function toWireRepToken(record: RepTokenRecord): RepToken {
  return {
    id: record.id,
    user_id: record.user_id,
    expires_at: record.expires_at.toISOString(),
    created_at: record.created_at.toISOString(),
    revoked_at: record.revoked_at?.toISOString() ?? null,
  };
}
