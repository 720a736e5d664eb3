import type { operations } from '../../../generated/openapi.ts';
import { type DealEstimator, EstimateRefused } from '../../services/estimates.ts';
import { ApiError } from '../errors.ts';
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
      const { orgId, keyId } = res.locals.auth as RequestAuth;
      const input = req.body as EstimateBody;
      let estimate: Estimate;
      try {
        estimate = await deps.estimator.estimate(orgId, keyId, input);
      } catch (error) {
        if (error instanceof EstimateRefused) throw new ApiError(error.code, error.message);
        throw error;
      }
      res.json(estimate);
    },
  };
}
