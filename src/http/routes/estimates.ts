import type { operations } from '../../../generated/openapi.ts';
import type { DealEstimator } from '../../services/estimates.ts';
import type { RequestAuth } from '../middleware/authenticate.ts';
import type { PublicHandlers } from './index.ts';

type EstimateBody = operations['createEstimate']['requestBody']['content']['application/json'];
type Estimate = operations['createEstimate']['responses'][200]['content']['application/json'];

export interface EstimateRouteDeps {
  estimator: DealEstimator;
}

export function estimateHandlers(deps: EstimateRouteDeps): Pick<PublicHandlers, 'createEstimate'> {
  return {
    createEstimate: async (req, res) => {
      const { viewer, keyId } = res.locals.auth as RequestAuth;
      const input = req.body as EstimateBody;
      const estimate = await deps.estimator.estimate(viewer, keyId, input);
      res.json(estimate satisfies Estimate);
    },
  };
}
