import { Command } from 'commander';
import { WEBHOOK_EVENT_KINDS } from '../../domain/webhooks/kinds.ts';
import type { WebhookDeliveryRecord } from '../../repositories/webhookDeliveries.ts';
import type { WebhookEndpointRecord } from '../../repositories/webhookEndpoints.ts';
import { DELIVERIES_LIMIT_DEFAULT, type WebhookAdmin } from '../../services/webhooks.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

const JSON_OPTION = ['--json', 'print exactly one JSON document on stdout'] as const;

function admin<T>(run: (webhooks: WebhookAdmin) => Promise<T>): Promise<T> {
  return withAdminServices((services) => run(services.webhooks));
}

export function webhooksCommand(): Command {
  const webhooks = new Command('webhooks').description(
    'register webhook endpoints, rotate their secrets, inspect and retry deliveries',
  );
  webhooks
    .command('add')
    .description('register an endpoint; its signing secret is printed once and cannot be recovered')
    .requiredOption('--org <org_id>', 'the org whose events the endpoint receives')
    .requiredOption('--url <url>', 'where to POST the webhooks (https)')
    .option('--events <kinds>', `comma-separated kinds (default all): ${WEBHOOK_EVENT_KINDS.join(', ')}`)
    .option(...JSON_OPTION)
    .action(async (options: { org: string; url: string; events?: string; json?: boolean }) => {
      try {
        const { endpoint, secret } = await admin((webhooks) =>
          webhooks.add({
            orgId: options.org,
            url: options.url,
            ...(options.events === undefined ? {} : { events: options.events }),
          }),
        );
        print(options, { ...describeEndpoint(endpoint), secret }, () =>
          [
            `Added webhook endpoint ${endpoint.id} for ${endpoint.url} (${kindsOf(endpoint)}).`,
            '',
            `  ${secret}`,
            '',
            'This is the only time the signing secret is shown. Give it to the receiver to verify signatures.',
            `Send a test: quotient webhooks test ${endpoint.id} --org ${options.org}`,
          ].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  webhooks
    .command('list')
    .description('list the endpoints of an org (never their secrets)')
    .requiredOption('--org <org_id>', 'the org')
    .option(...JSON_OPTION)
    .action(async (options: { org: string; json?: boolean }) => {
      try {
        const rows = (await admin((webhooks) => webhooks.list(options.org))).map(describeEndpoint);
        print(options, { endpoints: rows }, () =>
          table(rows, ['id', 'url', 'events', 'status', 'failing_since', 'disabled_reason', 'created_at']),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  webhooks
    .command('remove')
    .description('remove an endpoint: nothing more is sent to it (its delivery history is kept)')
    .argument('<endpoint_id>', 'the endpoint (wh_…)')
    .requiredOption('--org <org_id>', 'the org')
    .option(...JSON_OPTION)
    .action(async (endpointId: string, options: { org: string; json?: boolean }) => {
      try {
        const { endpoint: removed, changed } = await admin((webhooks) => webhooks.remove(options.org, endpointId));
        print(options, { ...describeEndpoint(removed), status: 'removed', changed }, () =>
          changed
            ? `Removed webhook endpoint ${removed.id} (${removed.url})`
            : `Webhook endpoint ${removed.id} was already removed; nothing changed`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  webhooks
    .command('rotate-secret')
    .description('give an endpoint a new signing secret (printed once); the old one also signs for 24 hours')
    .argument('<endpoint_id>', 'the endpoint (wh_…)')
    .requiredOption('--org <org_id>', 'the org')
    .option(...JSON_OPTION)
    .action(async (endpointId: string, options: { org: string; json?: boolean }) => {
      try {
        const { endpoint, secret } = await admin((webhooks) => webhooks.rotateSecret(options.org, endpointId));
        const until = endpoint.previous_secret_expires_at?.toISOString();
        print(options, { ...describeEndpoint(endpoint), secret }, () =>
          [
            `New signing secret for ${endpoint.id}:`,
            '',
            `  ${secret}`,
            '',
            'This is the only time it is shown. Until',
            `${until}, every webhook carries signatures by the old and the new secret, so deploy`,
            'the new secret to the receiver before then.',
          ].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  webhooks
    .command('enable')
    .description('enable an endpoint that was disabled (after a 410 reply or 5 days of failures)')
    .argument('<endpoint_id>', 'the endpoint (wh_…)')
    .requiredOption('--org <org_id>', 'the org')
    .option(...JSON_OPTION)
    .action(async (endpointId: string, options: { org: string; json?: boolean }) => {
      try {
        const { endpoint, changed } = await admin((webhooks) => webhooks.enable(options.org, endpointId));
        print(options, { ...describeEndpoint(endpoint), changed }, () =>
          changed
            ? `Enabled webhook endpoint ${endpoint.id}. Failed messages are not resent by themselves: use quotient webhooks redeliver.`
            : `Webhook endpoint ${endpoint.id} was already enabled; nothing changed`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  webhooks
    .command('test')
    .description('send a ping to an endpoint, to check that it is reachable and verifies signatures')
    .argument('<endpoint_id>', 'the endpoint (wh_…)')
    .requiredOption('--org <org_id>', 'the org')
    .option(...JSON_OPTION)
    .action(async (endpointId: string, options: { org: string; json?: boolean }) => {
      try {
        const sent = await admin((webhooks) => webhooks.test(options.org, endpointId));
        print(
          options,
          { message_id: sent.message_id, endpoint_id: endpointId, type: 'ping' },
          () =>
            `Queued ping ${sent.message_id} to ${endpointId}. See how it went: quotient webhooks deliveries ${endpointId} --org ${options.org}`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  webhooks
    .command('deliveries')
    .description('the latest messages to an endpoint, newest first, with every attempt')
    .argument('<endpoint_id>', 'the endpoint (wh_…)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--limit <n>', `how many messages, 1 to 200 (default ${DELIVERIES_LIMIT_DEFAULT})`)
    .option(...JSON_OPTION)
    .action(async (endpointId: string, options: { org: string; limit?: string; json?: boolean }) => {
      try {
        const deliveries = await admin((webhooks) => webhooks.deliveries(options.org, endpointId, options.limit));
        const rows = deliveries.map(describeDelivery);
        print(options, { deliveries: rows }, () => formatDeliveries(deliveries));
      } catch (error) {
        printFailure(options, error);
      }
    });
  webhooks
    .command('redeliver')
    .description('attempt a message again now (also a failed or delivered one) to its enabled endpoints')
    .argument('<message_id>', 'the message (msg_…), as in `webhooks deliveries` and the webhook-id header')
    .requiredOption('--org <org_id>', 'the org')
    .option('--endpoint <endpoint_id>', 'only to this endpoint')
    .option(...JSON_OPTION)
    .action(async (messageId: string, options: { org: string; endpoint?: string; json?: boolean }) => {
      try {
        const result = await admin((webhooks) => webhooks.redeliver(options.org, messageId, options.endpoint));
        print(options, result, () =>
          [
            `Redelivering ${messageId} now to:`,
            ...result.redelivered.map((delivery) => `  ${delivery.endpoint_id} (was ${delivery.previous_status})`),
          ].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  return webhooks;
}

function describeEndpoint(endpoint: WebhookEndpointRecord) {
  const rotationEnds = endpoint.previous_secret_expires_at;
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    status: endpoint.enabled ? 'enabled' : 'disabled',
    disabled_at: endpoint.disabled_at,
    disabled_reason: endpoint.disabled_reason,
    failing_since: endpoint.failing_since,
    previous_secret_expires_at: rotationEnds && rotationEnds.getTime() > Date.now() ? rotationEnds : null,
    created_at: endpoint.created_at,
  };
}

function kindsOf(endpoint: WebhookEndpointRecord): string {
  return endpoint.events.length === 0 ? 'every kind' : endpoint.events.join(', ');
}

function describeDelivery(delivery: WebhookDeliveryRecord) {
  return {
    message_id: delivery.message_id,
    type: delivery.type,
    created_at: delivery.message_created_at,
    status: delivery.status,
    in_flight: delivery.in_flight,
    attempt_count: delivery.attempt_count,
    next_attempt_at: delivery.status === 'pending' ? delivery.next_attempt_at : null,
    delivered_at: delivery.delivered_at,
    attempts: delivery.attempts,
  };
}

function formatDeliveries(deliveries: WebhookDeliveryRecord[]): string {
  if (deliveries.length === 0) return '(none)';
  return deliveries
    .map((delivery) => {
      const next =
        delivery.status === 'pending'
          ? delivery.in_flight
            ? ', attempt in flight'
            : `, next attempt ${delivery.next_attempt_at?.toISOString()}`
          : '';
      const head = `${delivery.message_id}  ${delivery.type}  ${delivery.message_created_at.toISOString()}  ${delivery.status}${next}`;
      const attempts = delivery.attempts.map(
        (attempt) =>
          `    ${attempt.attempted_at.toISOString()}  ${attempt.response_status ?? '-'}  ${attempt.latency_ms ?? '-'} ms${attempt.manual ? '  (redelivery)' : ''}${attempt.error ? `  ${attempt.error}` : ''}`,
      );
      return [head, ...attempts].join('\n');
    })
    .join('\n');
}
