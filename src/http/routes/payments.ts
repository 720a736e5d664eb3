import type { operations } from '../../../generated/openapi.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { PaymentDesk, PaymentInput } from '../../services/payments.ts';
import { toWirePayment } from '../../wire/payments.ts';
import type { RequestAuth } from '../middleware/authenticate.ts';
import { pageRequest } from '../pages.ts';
import { rawBodyOf } from '../rawBody.ts';
import type { PublicHandlers } from './index.ts';

type ListQuery = NonNullable<operations['listPayments']['parameters']['query']>;
type PaymentList = operations['listPayments']['responses'][200]['content']['application/json'];

export interface PaymentRouteDeps {
  payments: PaymentDesk;
}

/**
 * The request's auth, which must be an API key's: payments are the billing system's, read and written with an org's
 * API key. A rep token (whose deals:read lets a rep list their own deals) is refused, since a payment list is not cut
 * to the deals a rep sees; a rep reads what payments hold and release on their statement.
 */
function keyAuthOf(auth: RequestAuth): Extract<RequestAuth, { kind: 'api_key' }> {
  if (auth.kind === 'rep')
    throw new Refusal('forbidden', 'payments are read and recorded with an API key, not a rep token');
  return auth;
}

export function paymentHandlers(
  deps: PaymentRouteDeps,
): Pick<PublicHandlers, 'recordPayment' | 'listPayments' | 'getPayment' | 'voidPayment'> {
  return {
    recordPayment: async (req, res) => {
      const auth = keyAuthOf(res.locals.auth as RequestAuth);
      const result = await deps.payments.record(auth.orgId, {
        keyId: auth.keyId,
        body: req.body as PaymentInput,
        rawBody: rawBodyOf(req),
        receivedAt: new Date(),
      });
      if (result.kind === 'replayed') res.status(200).set('Idempotent-Replayed', 'true');
      else res.status(201);
      res.json(toWirePayment(result.payment));
    },

    listPayments: async (req, res) => {
      const auth = keyAuthOf(res.locals.auth as RequestAuth);
      const query = req.query as ListQuery;
      const page = await deps.payments.listPage(auth.orgId, {
        filters: {
          ...(query.deal_id === undefined ? {} : { dealId: query.deal_id }),
          ...(query.deal_external_id === undefined ? {} : { dealExternalId: query.deal_external_id }),
        },
        ...pageRequest(query),
      });
      const body: PaymentList = { payments: page.payments.map(toWirePayment), next_cursor: page.nextCursor };
      res.json(body);
    },

    getPayment: async (req, res) => {
      const auth = keyAuthOf(res.locals.auth as RequestAuth);
      res.json(toWirePayment(await deps.payments.get(auth.orgId, req.params.id as string)));
    },

    voidPayment: async (req, res) => {
      const auth = keyAuthOf(res.locals.auth as RequestAuth);
      const payment = await deps.payments.void(auth.orgId, {
        keyId: auth.keyId,
        id: req.params.id as string,
        receivedAt: new Date(),
      });
      res.json(toWirePayment(payment));
    },
  };
}
