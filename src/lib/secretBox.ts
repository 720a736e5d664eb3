import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Secrets Quotient must read back (an identity provider's client secret) are kept sealed with AES-256-GCM under the
// server's secret key, bound to what they belong to (the associated data), so a database dump alone does not reveal
// them and a sealed value moved to another row does not open.

const VERSION = 'v1';

/** Where the key is missing: neither QUOTIENT_SECRET_KEY nor an embedded database's key file. */
export class MissingSecretKey extends Error {
  constructor() {
    super('set QUOTIENT_SECRET_KEY (32 random bytes, base64: `openssl rand -base64 32`) to store secrets');
    this.name = 'MissingSecretKey';
  }
}

export interface SecretBox {
  seal(plain: string, boundTo: string): string;
  open(sealed: string, boundTo: string): string;
}

/**
 * The key: QUOTIENT_SECRET_KEY when set; with the embedded database, a key file beside it (created on first use, readable
 * by its owner only), so every process of the installation reads the same key; else none.
 */
export function secretKeySource(options: {
  key: Buffer | undefined;
  embeddedDataDir: string | undefined;
}): () => Buffer {
  return () => {
    if (options.key) return options.key;
    if (options.embeddedDataDir === undefined) throw new MissingSecretKey();
    const path = join(options.embeddedDataDir, 'secret.key');
    try {
      writeFileSync(path, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  };
}

/** Seals and opens with the key of `keySource`, read once, when first needed. */
export function secretBox(keySource: () => Buffer): SecretBox {
  let key: Buffer | undefined;
  const currentKey = () => {
    key ??= keySource();
    return key;
  };
  return {
    seal(plain, boundTo) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', currentKey(), iv);
      cipher.setAAD(Buffer.from(boundTo, 'utf8'));
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv, cipher.getAuthTag(), sealed]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed, boundTo) {
      const [version, iv, tag, text] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || text === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', currentKey(), Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(boundTo, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(text, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
