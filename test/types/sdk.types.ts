// Type tests of the SDK, checked by `npm run typecheck` and never run. Each `@ts-expect-error` marks a
// call or a read that the contract forbids; if a change to the SDK or the contract lets it type-check,
// the directive itself becomes an error ("Unused '@ts-expect-error' directive") and tsc fails.
import {
  createClient,
  type Deal,
  type DealEvent,
  type Earning,
  QuotientError,
  verifyWebhook,
  type WebhookEvent,
} from '../../sdk/src/index.ts';

const client = createClient({ baseUrl: 'https://api.quotient.example', apiKey: 'qtn_0' });
const event: DealEvent = { external_id: 'opp-1043', state: { stage: 'closed_won', amount_cents: 5_000_000 } };

export async function wrongRequests() {
  // @ts-expect-error external_id is required
  await client.deals.ingestEvent({ state: { stage: 'closed_won' } });
  // @ts-expect-error state.amount_cents is an integer, not a string
  await client.deals.ingestEvent({ external_id: 'opp-1043', state: { amount_cents: '5000000' } });
  // @ts-expect-error event_type is one of upsert, stage_change, amount_change, delete
  await client.deals.ingestEvent({ ...event, event_type: 'create' });
  // @ts-expect-error a misspelt dedup_key is an unknown member, as the server says too
  await client.deals.ingestEvent({ external_id: 'opp-1043', state: {}, dedupe_key: 'crm-evt-1' });
  // @ts-expect-error the raw client checks the body against the contract as well
  await client.raw.POST('/v1/deals/events', { body: { state: {} } });
  // @ts-expect-error no such path in the contract
  await client.raw.GET('/v1/deal', {});
  // @ts-expect-error the deal status filter is open, won, lost or deleted
  client.deals.list({ status: 'closed' });
  // @ts-expect-error limit is a number
  client.deals.list({ limit: '50' });
  // @ts-expect-error unknown filter
  client.earnings.list({ rep: 'rep-017' });
  // @ts-expect-error include takes only "chips"
  await client.plans.get('plan_01kjsj7s80fmtryrzh7j1q721q', { include: 'versions' });
}

export async function missingFields() {
  const context = await client.auth.get();
  // @ts-expect-error the key's secret is never returned
  void context.key.secret;
  const earning: Earning = await client.earnings.get('earn_01kpnvmrzqej3v8ht39yyeg4z9');
  // @ts-expect-error the amount is amount_cents
  void earning.amount;
  for await (const deal of client.deals.list({ status: 'won' })) {
    // @ts-expect-error a deal's amount lives in its state
    void deal.amount_cents;
    const amount: number | null = deal.state.amount_cents;
    void amount;
  }
  const plans = await client.plans.listPage();
  // @ts-expect-error the plan list is not paginated
  void plans.next_cursor;
}

export async function correctUse(): Promise<Deal[]> {
  const result = await client.deals.ingestEvent(event, { maxRetries: 4, timeoutMs: 5_000 });
  const ids: string[] = [result.source_event_id, result.domain_event_id, result.deal_id];
  void ids;
  const page = await client.deals.listPage({ status: 'won', limit: 200, updated_since: '2026-04-01T00:00:00Z' });
  const next: string | null = page.next_cursor;
  void next;
  const { data, error } = await client.raw.GET('/v1/earnings/{id}', { params: { path: { id: 'earn_0' } } });
  if (error) {
    const code: string = error.error;
    void code;
  } else {
    void data.trace;
  }
  try {
    await client.plans.get('plan_0', { include: 'chips' });
  } catch (failure) {
    if (failure instanceof QuotientError && failure.status === 429) {
      const wait: number | undefined = failure.retryAfterSeconds;
      void wait;
    }
    if (failure instanceof QuotientError && failure.error === 'period_open') void failure.reason;
    // @ts-expect-error the error code is one of the contract's codes, and the public API never sends this one
    if (failure instanceof QuotientError && failure.error === 'invalid_credentials') void failure.reason;
  }
  return page.deals;
}

export function webhookPayloads(body: string, headers: Headers): void {
  const payload: WebhookEvent = verifyWebhook('whsec_AAAA', body, headers);
  switch (payload.type) {
    case 'earning.created':
      void payload.data.earning.amount_cents;
      // @ts-expect-error an earning.created payload carries no deal
      void payload.data.deal;
      break;
    case 'deal.updated':
      void payload.data.domain_event.kind;
      break;
    default:
      break;
  }
  // @ts-expect-error verifyWebhook needs the raw body, not the parsed object
  verifyWebhook('whsec_AAAA', JSON.parse(body) as object, headers);
}

export async function repsAndPayroll(): Promise<number> {
  const rep = await client.users.findByExternalId('rep-017');
  // @ts-expect-error a rep may not exist: findByExternalId returns null then
  void rep.id;
  if (!rep) return 0;
  // @ts-expect-error the users filter is external_id
  client.users.list({ email: 'rep@example.com' });
  const statement = await client.statements.get(rep.id, '2026-04');
  const payable: number = statement.payable_cents;
  // @ts-expect-error a statement's totals are by status, not one number
  const total: number = statement.totals;
  void total;
  // @ts-expect-error payouts need the period: a payroll export is of one locked period
  client.payouts.list({});
  for await (const payout of client.payouts.list({ period_id: '2026-04' })) {
    const net: number = payout.total_cents;
    // @ts-expect-error a payout is in integer cents, never a formatted amount
    const formatted: string = payout.total_cents;
    void [net, formatted];
  }
  // @ts-expect-error an estimate needs the close date it assumes
  await client.estimates.create({ external_id: 'opp-1043' });
  const estimate = await client.estimates.create({ external_id: 'opp-1043', close_date: '2026-04-28' });
  const difference: number = estimate.difference_cents;
  for (const line of estimate.lines) {
    // @ts-expect-error estimated rows are never written, so they have no id
    void line.rows[0]?.id;
    const lineCurrency: string = line.currency;
    void lineCurrency;
  }
  for (const entry of estimate.by_currency) {
    // @ts-expect-error amounts are minor units (numbers), named apart from their currency
    const amount: string = entry.difference_cents;
    void [entry.currency, amount];
  }
  const earning = await client.earnings.get('earn_0');
  const reason: string | undefined = earning.status_reason?.code;
  void reason;
  return payable + difference;
}
