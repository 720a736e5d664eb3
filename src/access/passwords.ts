import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

// Admin passwords: scrypt (memory-hard) from node:crypto. The stored form names its parameters, so they can
// rise later without invalidating older hashes: "scrypt$<N>$<r>$<p>$<salt>$<hash>" (base64url).

const PARAMETERS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
// scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is exactly that for N=2^15, r=8: allow headroom.
const MAX_MEMORY = 64 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 12;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((done, fail) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem: MAX_MEMORY }, (error, key) =>
      error ? fail(error) : done(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMETERS);
  const { N, r, p } = PARAMETERS;
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** False for a wrong password and for a stored hash this code cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A password shown once by `quotient admins create`: 24 characters of base64url (144 random bits). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/**
 * A hash of a random password, computed once: unknown emails are checked against it, so a sign-in costs the
 * same scrypt work whether or not the account exists.
 */
let decoy: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoy ??= hashPassword(generatePassword());
  return decoy;
}
