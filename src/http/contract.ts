import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The bundled contract that `npm run generate` writes from openapi.yaml: served, validated against, routed by. */
export function loadContract(): Record<string, unknown> {
  const path = fileURLToPath(new URL('../../generated/openapi.json', import.meta.url));
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

/** The bundled admin contract (`npm run generate:admin-contract` writes it from openapi-admin.yaml). */
export function loadAdminContract(): Record<string, unknown> {
  const path = fileURLToPath(new URL('../../generated/openapi-admin.json', import.meta.url));
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}
