import express, { type Router } from 'express';
import { Refusal } from '../../domain/refusal.ts';
import type { Logger } from '../../lib/logger.ts';
import type { HubSpotWebhooks } from '../../services/connectors/hubspotWebhooks.ts';
import { sendRefusal } from '../errors.ts';

/** Where HubSpot posts a connection's webhooks; the connection's `webhook_path` (src/wire/connections.ts). */
export const HUBSPOT_WEBHOOKS_PATH = '/connectors/hubspot/webhooks/:orgId/:connectionId';

/**
 * The CRMs' webhooks, outside the contracts: the CRM calls them, signed with the app's secret, not with a key or a
 * session. The body is read as text, since the signature covers its exact bytes (1 MiB at most, as the APIs').
 */
export function connectorWebhooksRouter(webhooks: HubSpotWebhooks, logger: Logger): Router {
  const router = express.Router();
  router.post(
    HUBSPOT_WEBHOOKS_PATH,
    express.text({ type: () => true, limit: '1mb' }),
    async (req: express.Request<{ orgId: string; connectionId: string }>, res) => {
      try {
        await webhooks.receive({
          orgId: req.params.orgId,
          connectionId: req.params.connectionId,
          method: req.method,
          uri: `${req.protocol}://${req.get('host') ?? ''}${req.originalUrl}`,
          body: typeof req.body === 'string' ? req.body : '',
          signature: req.get('x-hubspot-signature-v3'),
          timestamp: req.get('x-hubspot-request-timestamp'),
        });
        res.status(204).end();
      } catch (error) {
        if (error instanceof Refusal) return sendRefusal(res, error);
        logger.error({ err: error }, 'a HubSpot webhook could not be applied');
        res
          .status(500)
          .json({ error: 'internal_error', reason: 'the webhook could not be applied; HubSpot retries it' });
      }
    },
  );
  return router;
}
