import type { components } from '../../generated/openapi.ts';
import type { UserRecord } from '../repositories/users.ts';

type User = components['schemas']['User'];

/** Allow-lists the wire fields of a user; `role` and `display_name` stay inside. */
export function toWireUser(user: UserRecord): User {
  return { id: user.id, external_id: user.external_id, created_at: new Date(user.created_at).toISOString() };
}
