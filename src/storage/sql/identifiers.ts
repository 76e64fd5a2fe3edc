/**
 * Identifier safety for generated SQL. Table and column names come from entity documents, so
 * every one is checked against a strict allow-list shape before it reaches `sql.id`/`sql.ref`;
 * values never become identifiers and identifiers never become values.
 */
import { ConfigurationError } from '../../errors.ts';
import type { EntityStorageModel } from '../types.ts';

const IDENTIFIER = /^[a-z][a-z0-9_]*$/;
/** PostgreSQL truncates identifiers beyond 63 bytes; refuse them rather than collide silently. */
const MAX_IDENTIFIER = 63;

/** Base columns every entity table has; business fields may not reuse these names. */
export const BASE_COLUMNS = [
  'id',
  'tenant_id',
  'workspace_id',
  'cell_id',
  'version',
  'created_at',
  'created_by',
  'updated_at',
  'updated_by',
  'deleted_at',
  'deleted_by',
] as const;

/** Base columns a list may filter or sort on, besides business fields (scope is always applied on top). */
export const LISTABLE_BASE_COLUMNS: ReadonlySet<string> = new Set(BASE_COLUMNS);

/** Throws a {@link ConfigurationError} unless `name` is a safe lower-case SQL identifier. */
export function assertIdentifier(path: string, name: string): void {
  if (!IDENTIFIER.test(name) || name.length > MAX_IDENTIFIER) {
    throw new ConfigurationError(path, `"${name}" is not a safe SQL name (expected [a-z][a-z0-9_]*, at most ${MAX_IDENTIFIER} characters)`);
  }
}

/** Checks every name a model contributes to generated SQL. */
export function assertModel(model: EntityStorageModel): void {
  const base = `storage.models[${model.resourceType}]`;
  assertIdentifier(`${base}.table`, model.table);
  if (model.table.startsWith('cellgate_')) {
    throw new ConfigurationError(`${base}.table`, `"${model.table}" is reserved for cellgate's own tables`);
  }
  const seen = new Set<string>();
  for (const field of model.fields) {
    assertIdentifier(`${base}.fields.${field.name}`, field.name);
    if ((BASE_COLUMNS as readonly string[]).includes(field.name)) {
      throw new ConfigurationError(`${base}.fields.${field.name}`, 'collides with a base column');
    }
    if (seen.has(field.name)) throw new ConfigurationError(`${base}.fields.${field.name}`, 'appears twice');
    seen.add(field.name);
  }
  for (const name of model.indexedFields) {
    if (!seen.has(name) && !LISTABLE_BASE_COLUMNS.has(name)) {
      throw new ConfigurationError(`${base}.indexedFields`, `"${name}" is neither a field nor a listable base column`);
    }
  }
  for (const name of model.referenceFields ?? []) {
    if (!seen.has(name)) throw new ConfigurationError(`${base}.referenceFields`, `"${name}" is not a field of the model`);
  }
}

/**
 * A stable short name for an index. Long table + field names would pass PostgreSQL's 63-byte
 * limit, so those fall back to a hash (FNV-1a) of the full name.
 */
export function indexName(table: string, suffix: string): string {
  const full = `${table}_${suffix}`;
  return full.length <= MAX_IDENTIFIER ? full : `cg_idx_${fnv1a(full)}`;
}

/** 32-bit FNV-1a as 8 hex digits: a cheap, dependency-free, runtime-neutral checksum. */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
