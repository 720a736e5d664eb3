import type { operations, paths } from '../../../generated/openapi-admin.ts';
import type { AdminServices } from '../../composition.ts';
import type { ContractHandlers } from '../handlers.ts';
import { accountingHandlers } from './routes/accounting.ts';
import { adjustmentHandlers } from './routes/adjustments.ts';
import { adminAccountHandlers } from './routes/admins.ts';
import { auditHandlers } from './routes/audit.ts';
import { connectionHandlers } from './routes/connections.ts';
import { contractHandlers } from './routes/contract.ts';
import { importHandlers } from './routes/imports.ts';
import { inquiryHandlers } from './routes/inquiries.ts';
import { keyHandlers } from './routes/keys.ts';
import { periodHandlers } from './routes/periods.ts';
import { planAcceptanceHandlers } from './routes/planAcceptances.ts';
import { planHandlers } from './routes/plans.ts';
import { portalAccessHandlers } from './routes/portalAccess.ts';
import { quotaHandlers } from './routes/quotas.ts';
import { repHandlers } from './routes/reps.ts';
import { scenarioHandlers } from './routes/scenarios.ts';
import { sessionHandlers } from './routes/session.ts';
import { webhookHandlers } from './routes/webhooks.ts';

/** The handlers of the admin contract (openapi-admin.yaml), one per operation. */
export type AdminHandlers = ContractHandlers<operations, paths>;

export interface AdminApiDeps {
  /** The admin use cases, from the composition root (src/composition.ts). */
  services: AdminServices;
  /** The served admin contract, as JSON text. */
  servedContract: string;
}

/**
 * Every operation of the admin contract, bound to its handler by operationId, one file per resource
 * (src/http/admin/routes/): leaving one out is a type error.
 */
export function adminHandlers(deps: AdminApiDeps): AdminHandlers {
  const { services } = deps;
  return {
    ...contractHandlers(deps.servedContract),
    ...sessionHandlers(services),
    ...keyHandlers(services),
    ...auditHandlers(services),
    ...planHandlers(services),
    ...periodHandlers(services),
    ...adjustmentHandlers(services),
    ...webhookHandlers(services),
    ...repHandlers(services),
    ...quotaHandlers(services),
    ...adminAccountHandlers(services),
    ...portalAccessHandlers(services),
    ...connectionHandlers(services),
    ...accountingHandlers(services),
    ...importHandlers(services.dealImport),
    ...inquiryHandlers(services),
    ...planAcceptanceHandlers(services),
    ...scenarioHandlers(services),
  };
}
