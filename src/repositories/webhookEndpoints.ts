import { named, type Transaction } from './transaction.ts';

/** Whether the org has any webhook endpoint (enabled or not): without one, nothing needs announcing. */
export async function hasWebhookEndpoints(tx: Transaction, orgId: string): Promise<boolean> {
  const rows = await tx.query<{ found: boolean }>(
    named('earnings_has_webhook_endpoints', {
      text: 'SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE org_id = $1) AS found',
      values: [orgId],
    }),
  );
  return rows[0]?.found ?? false;
}
