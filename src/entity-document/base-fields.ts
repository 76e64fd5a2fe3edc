/**
 * The base fields of every governed record, by scope (docs/contract-conventions.md#standalone-entity-definition-document). A document
 * may declare them (their descriptors are checked) or leave them out (they are added), so entity
 * documents stay short.
 */
import type { FieldDescriptor } from './schema.ts';

type Scope = 'system-global' | 'workspace-shared' | 'cell-isolated';

const uuid = (nullable = false): FieldDescriptor => ({ type: 'string', format: 'uuid', nullable, optional: false, sensitive: false, credential: false });
const dateTime = (nullable = false): FieldDescriptor => ({
  type: 'string',
  format: 'date-time',
  nullable,
  optional: false,
  sensitive: false,
  credential: false,
});

/** Every base field name with its required descriptor, in document order. */
export const BASE_FIELDS: Readonly<Record<string, FieldDescriptor>> = {
  id: uuid(),
  tenant_id: uuid(),
  workspace_id: uuid(),
  cell_id: uuid(),
  version: { type: 'integer', nullable: false, optional: false, sensitive: false, credential: false },
  created_at: dateTime(),
  created_by: uuid(),
  updated_at: dateTime(),
  updated_by: uuid(),
  deleted_at: dateTime(true),
  deleted_by: uuid(true),
};

/** Base fields a scope requires (added when absent). */
export function requiredBaseFields(scope: Scope): string[] {
  const all = Object.keys(BASE_FIELDS);
  if (scope === 'cell-isolated') return all;
  if (scope === 'workspace-shared') return all.filter((name) => name !== 'cell_id');
  return all.filter((name) => name !== 'cell_id' && name !== 'workspace_id');
}

/** Base fields a scope forbids: a system-global record has no workspace or cell. */
export function forbiddenBaseFields(scope: Scope): string[] {
  return scope === 'system-global' ? ['workspace_id', 'cell_id'] : [];
}

/** True for the name of a base field (server-assigned, never a business field). */
export function isBaseField(name: string): boolean {
  return Object.hasOwn(BASE_FIELDS, name);
}
