// Reps' display names (docs/reps-and-payroll.md#display-names): the name a rep types to accept a plan and the portal
// greets them by. An admin sets it, or the rep's identity provider supplies it at a portal sign-in; an admin's name
// is never overwritten by a sign-in.

/** Who set a rep's display name last. */
export type DisplayNameSource = 'admin' | 'idp';

/** The longest display name kept, in characters. */
export const MAX_DISPLAY_NAME_LENGTH = 200;

/**
 * The name as it is kept: Unicode-normalised (NFC), trimmed, each run of whitespace one space. Typed-name checks
 * ignore case and runs of whitespace, so nothing a rep could type is lost.
 */
export function normaliseDisplayName(raw: string): string {
  return raw.normalize('NFC').trim().replace(/\s+/g, ' ');
}

/** Why a (normalised) name cannot be kept; null when it can. */
export function displayNameProblem(name: string): string | null {
  if (name === '') return 'must not be blank';
  if ([...name].length > MAX_DISPLAY_NAME_LENGTH) return `must be at most ${MAX_DISPLAY_NAME_LENGTH} characters`;
  if (/\p{Cc}/u.test(name)) return 'must not contain control characters';
  return null;
}

/**
 * The person's name in an ID token: `name`, else `given_name` and `family_name` joined; null when the token has
 * none that could be kept (a provider's odd value is ignored, never stored cut short).
 */
export function nameFromClaims(claims: Readonly<Record<string, unknown>>): string | null {
  const text = (value: unknown) => (typeof value === 'string' ? normaliseDisplayName(value) : '');
  const full = text(claims.name);
  const candidate = full !== '' ? full : [text(claims.given_name), text(claims.family_name)].filter(Boolean).join(' ');
  return displayNameProblem(candidate) === null ? candidate : null;
}
