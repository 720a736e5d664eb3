import { createHmac } from 'node:crypto';
import type { Portal, WebhookEvent } from './portal.ts';

// The simulated portal's webhooks: a batch of events POSTed to the app, signed with its client secret as HubSpot
// signs (`X-HubSpot-Signature-v3` over method, URL, body and timestamp).

export async function sendSignedWebhook(
  portal: Portal,
  url: string,
  events: WebhookEvent[],
  options: { secret?: string; timestamp?: number },
): Promise<{ status: number; body: string }> {
  const body = JSON.stringify(
    events.map((event, index) => ({
      eventId: Number(`${Date.now() % 1_000_000}${index}`),
      subscriptionId: 2_400_001,
      portalId: portal.portalId,
      appId: 1_234_567,
      attemptNumber: 0,
      changeSource: 'CRM_UI',
      ...event,
    })),
  );
  const timestamp = String(options.timestamp ?? Date.now());
  const signature = createHmac('sha256', options.secret ?? portal.clientSecret)
    .update(`POST${url}${body}${timestamp}`)
    .digest('base64');
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-hubspot-signature-v3': signature,
      'x-hubspot-request-timestamp': timestamp,
    },
    body,
  });
  return { status: response.status, body: await response.text() };
}
