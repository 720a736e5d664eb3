// The kinds of webhook an endpoint can subscribe to. `ping` is not among them: it is
// sent only on request (`quotient webhooks test`), to the one endpoint named.
export const WEBHOOK_EVENT_KINDS = [
  'earning.created',
  'earning.status_changed',
  'deal.updated',
  'period.locked',
  'period.paid',
  'period.reopened',
  'adjustment.created',
  'inquiry.created',
  'inquiry.updated',
  'plan.acceptance_requested',
  'plan.accepted',
  'statement.approval_reminder',
] as const;

export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

/** Every `type` a message can have. */
export type WebhookMessageType = WebhookEventKind | 'ping';

export function isWebhookEventKind(value: string): value is WebhookEventKind {
  return (WEBHOOK_EVENT_KINDS as readonly string[]).includes(value);
}

/**
 * `--events kind,kind`: the kinds an endpoint subscribes to, deduplicated, in the order given. Absent or empty
 * means every kind (stored as an empty list, so that kinds added later reach the endpoint too).
 */
export function parseEventKinds(raw: string | undefined): { kinds: WebhookEventKind[] } | { error: string } {
  const names = (raw ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !isWebhookEventKind(name));
  if (unknown.length > 0) {
    return {
      error: `unknown event kind${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the kinds are ${WEBHOOK_EVENT_KINDS.join(', ')} (omit --events for all of them)`,
    };
  }
  return { kinds: [...new Set(names as WebhookEventKind[])] };
}
