// The layers of `GET /v1/` that bench/layers-server.ts builds up, in order (each includes the ones before it), and
// what each adds, as `npm run bench` names their rows.
export const LAYERS = {
  key: "Express, operation match, Quotient's key read and count, handler",
  context: '+ request id, security headers, log line, metrics',
  audit: '+ authenticate (rate-limit decision and headers, scope, audit entry)',
  contract: '+ body parser, parameter check, contract validator, dispatch',
} as const;

export type Layer = keyof typeof LAYERS;

export const LAYER_NAMES = Object.keys(LAYERS) as Layer[];
