// Type tests of the handler tables, checked by `npm run typecheck` and never run. Each `@ts-expect-error` marks
// a table the contract forbids: if a change to the handler types or the contracts lets it type-check, the
// directive itself becomes an error ("Unused '@ts-expect-error' directive") and tsc fails.
import type { AdminHandlers } from '../../src/http/admin/handlers.ts';
import type { PublicHandlers } from '../../src/http/routes/index.ts';

declare const admin: AdminHandlers;
declare const publicApi: PublicHandlers;

// @ts-expect-error an admin operation of openapi-admin.yaml without a handler
export const missingAdminHandler: AdminHandlers = { ...admin, revokeApiKey: undefined };

export const { listAdmins: _listAdmins, ...withoutListAdmins } = admin;
// @ts-expect-error the table must have every operation: listAdmins is left out
export const incompleteAdminTable: AdminHandlers = withoutListAdmins;

export const wrongAdminBodies: Partial<AdminHandlers> = {
  listAdmins: async (_req, res) => {
    // @ts-expect-error listAdmins answers { admins: [...] }, not a list of keys
    res.status(200).json({ keys: [] });
  },
  revokeApiKey: async (_req, res) => {
    res.status(200).json({
      id: 'key_1',
      name: 'ci',
      display_prefix: 'qtn_1234',
      scopes: ['deals:read'],
      rate_limit_per_minute: 1000,
      // @ts-expect-error revokeApiKey answers an ApiKey, whose status is active or revoked
      status: 'deleted',
      created_at: '2026-04-20T16:30:12.456Z',
      last_used_at: null,
      revoked_at: null,
    });
  },
  createApiKey: async (req, _res) => {
    // @ts-expect-error the request body's scopes are a list, not a string
    const scopes: string = req.body.scopes;
    void scopes;
  },
  getPlan: async (req, _res) => {
    // @ts-expect-error getPlan's only path parameter is id
    void req.params.plan_id;
  },
};

// @ts-expect-error an operation of openapi.yaml without a handler
export const missingPublicHandler: PublicHandlers = { ...publicApi, ingestDealEvent: undefined };

export const wrongPublicBodies: Partial<PublicHandlers> = {
  getHealth: (_req, res) => {
    // @ts-expect-error getHealth answers { status: "ok" }
    res.json({ healthy: true });
  },
};
