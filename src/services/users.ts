import { keysetCursor, keysetFingerprint } from '../domain/lists/keysetCursor.ts';
import { type Viewer, visibleUserIdsOf } from '../domain/viewer.ts';
import type { Transactor } from '../repositories/transaction.ts';
import type { UserListFilters, UserRecord } from '../repositories/users.ts';
import * as users from '../repositories/users.ts';

export interface UserPage {
  users: UserRecord[];
  nextCursor: string | null;
}

export const USER_CURSOR = keysetCursor({ idPrefix: 'user', timeMember: 'c' });

/** Reading the org's users (reps): keyset pages in (created_at, id) order, and one user by id. */
export class UserReader {
  readonly #pool: Transactor;

  constructor(pool: Transactor) {
    this.#pool = pool;
  }

  /** Refuses (`invalid_body`) a cursor that is malformed or was issued for other filters or another org. */
  async listPage(
    viewer: Viewer,
    query: { filters: UserListFilters; limit: number; cursor?: string },
  ): Promise<UserPage> {
    const { orgId } = viewer;
    const fingerprint = keysetFingerprint(orgId, { external_id: query.filters.externalId ?? null });
    const from = query.cursor === undefined ? null : USER_CURSOR.decode(query.cursor, fingerprint);
    const rows = await users.listAfter(
      this.#pool.statements,
      orgId,
      query.filters,
      from,
      query.limit + 1,
      visibleUserIdsOf(viewer),
    );
    const page = USER_CURSOR.page(rows, query.limit, fingerprint, (user) => ({ at: user.created_at, id: user.id }));
    return { users: page.items, nextCursor: page.nextCursor };
  }

  /** Null when the viewer's org has no such user or the viewer may not see them. */
  find(viewer: Viewer, userId: string): Promise<UserRecord | null> {
    return users.find(this.#pool.statements, viewer.orgId, userId, visibleUserIdsOf(viewer));
  }
}
