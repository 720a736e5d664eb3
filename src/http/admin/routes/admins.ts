import type { AdminServices } from '../../../composition.ts';
import { toAdmin } from '../../../wire/admin.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

export function adminAccountHandlers(services: AdminServices): Pick<AdminHandlers, 'listAdmins'> {
  return {
    listAdmins: async (_req, res) => {
      const { session } = adminContext(res);
      const admins = await services.admins.list(session.org_id);
      res.status(200).json({ admins: admins.map(toAdmin) });
    },
  };
}
