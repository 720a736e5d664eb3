import type { AdminServices } from '../../../composition.ts';
import { toWireAdminAdjustment } from '../../../wire/adjustments.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

/** Manual adjustments of the signed-in admin's org: add, list, read, void, and import a CSV file. */
export function adjustmentHandlers(
  services: AdminServices,
): Pick<
  AdminHandlers,
  'listAdminAdjustments' | 'createAdjustment' | 'getAdjustment' | 'voidAdjustment' | 'importAdjustments'
> {
  const admin = services.adjustments;
  return {
    listAdminAdjustments: async (req, res) => {
      const { session } = adminContext(res);
      const query = req.query;
      const page = await admin.listPage(session.org_id, {
        filters: {
          ...(query.period_id === undefined ? {} : { periodId: query.period_id }),
          ...(query.user_id === undefined ? {} : { userId: query.user_id }),
          ...(query.category === undefined ? {} : { category: query.category }),
        },
        limit: query.limit ?? 50,
        ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      });
      res.status(200).json({ adjustments: page.adjustments.map(toWireAdminAdjustment), next_cursor: page.nextCursor });
    },

    createAdjustment: async (req, res) => {
      const { session, actor } = adminContext(res);
      const written = await admin.create(session.org_id, req.body, actor);
      res
        .status(written.created ? 201 : 200)
        .json({ adjustment: toWireAdminAdjustment(written.adjustment), created: written.created });
    },

    getAdjustment: async (req, res) => {
      const { session } = adminContext(res);
      res.status(200).json(toWireAdminAdjustment(await admin.get(session.org_id, req.params.id)));
    },

    voidAdjustment: async (req, res) => {
      const { session, actor } = adminContext(res);
      const written = await admin.void(session.org_id, req.params.id, req.body, actor);
      res.status(201).json({ adjustment: toWireAdminAdjustment(written.adjustment), created: true });
    },

    importAdjustments: async (req, res) => {
      const { session, actor } = adminContext(res);
      const summary = await admin.importFile(
        session.org_id,
        req.body.text,
        { dryRun: req.body.dry_run === true, source: 'the uploaded file' },
        actor,
      );
      res.status(200).json(summary);
    },
  };
}
