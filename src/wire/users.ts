import type { components } from '../../generated/openapi.ts';
import type { UserRecord } from '../repositories/users.ts';

type User = components['schemas']['User'];

/** Allow-lists the wire fields of a user; `role` and who set the display name stay inside. */
export function toWireUser(user: UserRecord): User {
  return {
    id: user.id,
    external_id: user.external_id,
    display_name: user.display_name,
    created_at: new Date(user.created_at).toISOString(),
  };
}
