/**
 * libpq's multi-host URLs for failover (B38): `postgres://u@a:5432,b:5432/db?target_session_attrs=read-write`.
 * node-postgres takes one host only (its URL parser refuses the comma list), so the driver opens a
 * pool per host and checks out from the current one; when that fails, it tries the others in
 * order and keeps the first that accepts and is not in recovery (the writable primary), as libpq
 * does with `target_session_attrs=read-write`. Until a host is writable, a checkout fails and the
 * request answers 503 with `Retry-After`.
 */
import type { PostgresPool, PostgresPoolClient } from 'kysely';

const MULTI_HOST = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*,[^/?#]*)(.*)$/;

/**
 * The single-host URLs of a multi-host URL, in order (without `target_session_attrs`, which
 * node-postgres does not know); `undefined` for a URL with one host.
 */
export function splitHosts(connectionString: string): string[] | undefined {
  const match = MULTI_HOST.exec(connectionString);
  if (!match) return undefined;
  const [, scheme, auth = '', hosts, rest = ''] = match as unknown as [string, string, string | undefined, string, string | undefined];
  const [path, query = ''] = rest.split('?', 2) as [string, string | undefined];
  const params = new URLSearchParams(query);
  params.delete('target_session_attrs');
  const tail = params.size > 0 ? `${path}?${params}` : path;
  return hosts.split(',').map((host) => `${scheme}${auth}${host}${tail}`);
}

/** A pool over one pool per host, checking out from the writable one (see the file comment). */
export function failoverPool(pools: readonly PostgresPool[]): PostgresPool {
  let current = 0;
  // The first host is taken without a check only once it has been seen writable.
  let verified = false;
  return {
    async connect(): Promise<PostgresPoolClient> {
      let lastError: unknown = Object.assign(new Error('no host is writable'), { code: '08001' });
      for (let step = 0; step < pools.length; step++) {
        const index = (current + step) % pools.length;
        let client: PostgresPoolClient;
        try {
          client = await pools[index]!.connect();
        } catch (error) {
          lastError = error;
          if (index === current) verified = false;
          continue;
        }
        if (index === current && verified) return client;
        // A host other than the last writable one: take it only once it is a primary.
        try {
          const { rows } = await client.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery', []);
          if (rows[0]?.recovery === false) {
            current = index;
            verified = true;
            return client;
          }
          // 08001 (unable to establish a connection), as libpq reports no writable host: a 503.
          lastError = Object.assign(new Error(`host ${index + 1} of the URL is a standby (in recovery)`), { code: '08001' });
        } catch (error) {
          lastError = error;
        }
        client.release();
      }
      throw lastError;
    },
    async end() {
      await Promise.all(pools.map((pool) => pool.end()));
    },
  };
}
