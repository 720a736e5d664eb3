import { createHash } from 'node:crypto';
import { Refusal } from '../../domain/refusal.ts';

// What an admin gives a connection, checked: its URLs, and an authorization's state as it is kept (its digest).

/** An authorization's state as it is stored: its SHA-256, never the state itself. */
export function digest(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

/** An https URL (plain http only on a loopback address), as the CRMs' OAuth endpoints and redirects must be. */
export function parseUrl(field: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Refusal('invalid_body', `${field}: ${JSON.stringify(raw)} is not a URL`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Refusal('invalid_body', `${field}: must be an https URL (plain http only on a loopback address)`);
  }
  return field === 'login_url' ? url.origin : url.toString();
}
