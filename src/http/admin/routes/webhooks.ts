import type { AdminServices } from '../../../composition.ts';
import { toEndpoint } from '../../../wire/admin.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

export function webhookHandlers(
  services: AdminServices,
): Pick<
  AdminHandlers,
  | 'listWebhookEndpoints'
  | 'createWebhookEndpoint'
  | 'listWebhookDeliveries'
  | 'rotateWebhookSecret'
  | 'redeliverWebhookMessage'
> {
  return {
    listWebhookEndpoints: async (_req, res) => {
      const { session } = adminContext(res);
      const endpoints = await services.webhooks.list(session.org_id);
      res.status(200).json({ endpoints: endpoints.map(toEndpoint) });
    },

    createWebhookEndpoint: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body;
      const created = await services.webhooks.add(
        {
          orgId: session.org_id,
          url: body.url,
          ...(body.events && body.events.length > 0 ? { events: body.events.join(',') } : {}),
        },
        actor,
      );
      res.status(201).json({ endpoint: toEndpoint(created.endpoint), secret: created.secret });
    },

    listWebhookDeliveries: async (req, res) => {
      const { session } = adminContext(res);
      const { limit } = req.query;
      const deliveries = await services.webhooks.deliveries(
        session.org_id,
        req.params.id,
        limit === undefined ? undefined : String(limit),
      );
      res.status(200).json({
        deliveries: deliveries.map((delivery) => ({
          message_id: delivery.message_id,
          type: delivery.type,
          message_created_at: delivery.message_created_at.toISOString(),
          status: delivery.status,
          attempt_count: delivery.attempt_count,
          in_flight: delivery.in_flight,
          next_attempt_at: delivery.next_attempt_at?.toISOString() ?? null,
          delivered_at: delivery.delivered_at?.toISOString() ?? null,
          attempts: delivery.attempts.map((attempt) => ({
            attempted_at: attempt.attempted_at.toISOString(),
            response_status: attempt.response_status,
            error: attempt.error,
          })),
        })),
      });
    },

    rotateWebhookSecret: async (req, res) => {
      const { session, actor } = adminContext(res);
      const rotated = await services.webhooks.rotateSecret(session.org_id, req.params.id, actor);
      res.status(200).json({ endpoint: toEndpoint(rotated.endpoint), secret: rotated.secret });
    },

    redeliverWebhookMessage: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body ?? {};
      const result = await services.webhooks.redeliver(session.org_id, req.params.id, body.endpoint_id, actor);
      res.status(200).json(result);
    },
  };
}
