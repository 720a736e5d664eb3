import type { AdminServices } from '../../../composition.ts';
import type { AuditFilters } from '../../../repositories/audit.ts';
import { toAuditEntry } from '../../../wire/admin.ts';
import { pageRequest } from '../../pages.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

export function auditHandlers(services: AdminServices): Pick<AdminHandlers, 'listAuditEntries'> {
  return {
    listAuditEntries: async (req, res) => {
      const { session } = adminContext(res);
      const query = req.query;
      const filters: AuditFilters = {
        ...(query.actor === undefined ? {} : { actor: query.actor }),
        ...(query.key_id === undefined ? {} : { keyId: query.key_id }),
        ...(query.action === undefined ? {} : { action: query.action }),
        ...(query.from === undefined ? {} : { from: new Date(query.from) }),
        ...(query.to === undefined ? {} : { to: new Date(query.to) }),
      };
      const page = await services.audit.listPage(session.org_id, {
        filters,
        ...pageRequest(query),
      });
      res.status(200).json({
        entries: page.entries.map(toAuditEntry),
        next_cursor: page.nextCursor,
      });
    },
  };
}
