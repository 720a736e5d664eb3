// A connection string may lead to PostgreSQL through a transaction-pooling proxy (PgBouncer with
// pool_mode=transaction), which hands each transaction, and each statement outside one, whichever server
// connection is free. Nothing may then outlive a transaction on the server: no named prepared statements, no
// session settings (PgBouncer 1.18 even refuses the `options` startup parameter that carries them), no session
// advisory locks. Such a connection string says so with `pgbouncer=true`, as Prisma's do; the work that needs a
// session of its own (migrations and their lock, the rate-limit lease) then goes to the direct connection
// string (QUOTIENT_DIRECT_DATABASE_URL). docs/operations.md, "Behind PgBouncer".

/** True when the connection string goes through a transaction-pooling proxy (`pgbouncer=true`). */
export function throughTransactionPooler(url: string): boolean {
  try {
    return new URL(url).searchParams.get('pgbouncer') === 'true';
  } catch {
    return false;
  }
}

/**
 * The connection string for work that needs a session of its own: `direct` when given, else `url` itself when it
 * reaches PostgreSQL directly. A pooled `url` without a direct one is refused: session work through the pooler
 * would leave its locks on server connections that other clients then get.
 */
export function sessionUrl(url: string, direct: string | undefined): string {
  if (direct !== undefined) return direct;
  if (throughTransactionPooler(url)) {
    throw new Error(
      'DATABASE_URL goes through a transaction pooler (pgbouncer=true): set QUOTIENT_DIRECT_DATABASE_URL to a ' +
        'direct connection to the same database, for migrations and the rate-limit lease',
    );
  }
  return url;
}
