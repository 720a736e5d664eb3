import type { operations } from '../../../generated/openapi.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { UserReader } from '../../services/users.ts';
import { toWireUser } from '../../wire/users.ts';
import { viewerOf } from '../middleware/authenticate.ts';
import { pageRequest } from '../pages.ts';
import type { PublicHandlers } from './index.ts';

type UserList = operations['listUsers']['responses'][200]['content']['application/json'];
type User = operations['getUser']['responses'][200]['content']['application/json'];
type ListQuery = NonNullable<operations['listUsers']['parameters']['query']>;
type GetParams = operations['getUser']['parameters'];

export interface UserRouteDeps {
  userReader: UserReader;
}

export function userHandlers(deps: UserRouteDeps): Pick<PublicHandlers, 'listUsers' | 'getUser'> {
  return {
    listUsers: async (req, res) => {
      const viewer = viewerOf(res);
      const query = req.query as ListQuery;
      const page = await deps.userReader.listPage(viewer, {
        filters: query.external_id === undefined ? {} : { externalId: query.external_id },
        ...pageRequest(query),
      });
      const body: UserList = { users: page.users.map(toWireUser), next_cursor: page.nextCursor };
      res.json(body);
    },

    getUser: async (req, res) => {
      const viewer = viewerOf(res);
      const { id } = req.params as GetParams['path'];
      const user = await deps.userReader.find(viewer, id);
      if (!user) throw new Refusal('not_found', `no user ${id}`);
      res.json(toWireUser(user) satisfies User);
    },
  };
}
