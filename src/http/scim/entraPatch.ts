import express, { type Router } from 'express';

/** SCIM bodies (application/scim+json or application/json), as scimmy-routers reads them. */
const SCIM_TYPES = ['application/scim+json', 'application/json'];

function asBoolean(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (/^true$/i.test(value)) return true;
  if (/^false$/i.test(value)) return false;
  return value;
}

/**
 * Microsoft Entra ID sends a PATCH's booleans as strings ("active": "False"), unlike RFC 7644 and Okta; the SCIM
 * library refuses a string for a boolean. This reads the body and turns the `active` of each PATCH operation into the
 * boolean it stands for, so that both clients deactivate a rep alike. Nothing else of a body changes.
 */
export function normaliseEntraPatch(): Router {
  const router = express.Router();
  router.use(express.json({ type: SCIM_TYPES, limit: '1mb' }));
  router.patch(/.*/, (req, _res, next) => {
    const operations = (req.body as { Operations?: unknown } | undefined)?.Operations;
    if (!Array.isArray(operations)) return next();
    for (const operation of operations as Array<Record<string, unknown>>) {
      if (typeof operation !== 'object' || operation === null) continue;
      if (typeof operation.path === 'string' && /^active$/i.test(operation.path)) {
        operation.value = asBoolean(operation.value);
      } else if (typeof operation.value === 'object' && operation.value !== null && 'active' in operation.value) {
        const value = operation.value as Record<string, unknown>;
        value.active = asBoolean(value.active);
      }
    }
    next();
  });
  return router;
}
