/**
 * Compiled SQL of the hot statements (get, insert, conditional update, audit append, version
 * put), kept per driver. Building and compiling a Kysely `sql` template costs more than running
 * these short statements, and their text only depends on the model and on which scope values are
 * null, so the text is compiled once per key and later calls bind fresh parameters to it.
 */
import { CompiledQuery, type QueryResult, type RawBuilder } from 'kysely';
import type { SqlDb, SqlTx } from './sql-dialect.ts';

/** SQL text by statement key; one per driver. */
export type StatementCache = Map<string, string>;

/** An empty cache. */
export function createStatementCache(): StatementCache {
  return new Map();
}

function sameParameters(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, index) => Object.is(value, b[index]));
}

/**
 * Runs the statement `key`: compiled from `build()` the first time (which also checks that
 * `parameters` lists the values in the order the template binds them), from the cached text after.
 */
export async function runCached<R>(
  db: SqlDb | SqlTx,
  cache: StatementCache,
  key: string,
  build: () => RawBuilder<R>,
  parameters: unknown[],
): Promise<QueryResult<R>> {
  const text = cache.get(key);
  if (text !== undefined) return db.executeQuery<R>(CompiledQuery.raw(text, parameters));
  const compiled = build().compile(db);
  if (!sameParameters(compiled.parameters, parameters)) {
    throw new Error(`cellgate: parameters of cached statement ${key} are out of order`);
  }
  cache.set(key, compiled.sql);
  return db.executeQuery<R>(compiled);
}
