/**
 * Database errors → wire errors. Messages are fixed sentences for clients: no SQL, table,
 * column or constraint names ever reach them; the original error stays in `cause` for logs.
 */
import { CellgateError } from '../../errors.ts';
import type { SqlDialect } from './sql-dialect.ts';

/** `Retry-After` of a 503 from storage: outages and lock waits are expected to clear within seconds. */
const RETRY_AFTER_SECONDS = '1';

/** Maps a client error to a {@link CellgateError}; anything unrecognised is returned unchanged (→ 500). */
export function toStorageError(dialect: SqlDialect, error: unknown): unknown {
  if (error instanceof CellgateError) return error;
  switch (dialect.classify(error)) {
    case 'unique':
      return new CellgateError('CONFLICT', 'A record with this identity already exists.', { cause: error });
    case 'retry':
      return new CellgateError('CONFLICT', 'The change collided with a concurrent change. Read the record again and retry.', { cause: error });
    case 'unavailable':
      return new CellgateError('SERVICE_UNAVAILABLE', 'The database is unavailable. Retry shortly.', {
        headers: { 'Retry-After': RETRY_AFTER_SECONDS },
        cause: error,
      });
    case 'busy':
      return new CellgateError('SERVICE_UNAVAILABLE', 'Another change holds the lock this one needs and is taking long. Retry shortly.', {
        headers: { 'Retry-After': RETRY_AFTER_SECONDS },
        cause: error,
      });
    case 'full':
      // Not 503: a retry cannot succeed until someone frees disk space (see docs/operations.md).
      return new CellgateError('INSUFFICIENT_STORAGE', 'Storage is full: nothing can be written until disk space is freed on the database server.', {
        cause: error,
      });
    case 'invalid':
      return new CellgateError('VALIDATION_ERROR', 'A value could not be stored: it is out of range or not valid for its field type.', { cause: error });
    case undefined:
      return error;
  }
}

/** Runs a database call and rethrows its failure as a wire error where one fits. */
export async function mapErrors<T>(dialect: SqlDialect, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toStorageError(dialect, error);
  }
}
