import type { Router } from 'express';
import { contractRouter } from '../contractRouter.ts';
import { asHandlerTable } from '../handlers.ts';
import { type AdminApiDeps, adminHandlers } from './handlers.ts';
import { adminSession } from './session.ts';

export interface AdminApiOptions extends Omit<AdminApiDeps, 'servedContract'> {
  contract: Record<string, unknown>;
  validateResponses: boolean;
  bodyLimitBytes: number;
}

export const PREFIX = '/admin/v1';

/**
 * The admin API under /admin/v1, from its own contract through the contract router: operation lookup (404/405) →
 * session, origin, CSRF and role (401/403) → body parsing → contract validation (400) → the operation's handler.
 * Errors go on to the app's error handler, so they have the public API's format and request ids.
 */
export function adminApiRouter(options: AdminApiOptions): Router {
  return contractRouter({
    contract: options.contract,
    handlers: asHandlerTable(adminHandlers({ ...options, servedContract: JSON.stringify(options.contract) })),
    access: adminSession(options.services.sessions),
    prefix: PREFIX,
    // The console's pages and the API's answers are never cached by browsers or proxies.
    headers: { 'Cache-Control': 'no-store' },
    bodyLimitBytes: options.bodyLimitBytes,
    validateResponses: options.validateResponses,
  });
}
