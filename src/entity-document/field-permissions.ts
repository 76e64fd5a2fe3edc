/**
 * Field-level permissions of an entity document (docs/field-access.md, docs/decisions/B34.md): a
 * field descriptor may carry `permissions: { view, edit }`, role lists in the shape of the
 * entity's own; absent, the field follows the entity's permissions.
 */
import { z } from 'zod';
import type { ValidationIssue } from '../validation/results.ts';
import { list } from '../validation/list.ts';
import { isBaseField } from './base-fields.ts';

const roles = list(z.string().min(1, { error: 'Must not be empty' }));

/** `permissions` of one field descriptor: who may read it and who may write it. */
export const FieldPermissionsSchema = z
  .strictObject({
    view: roles.describe('Roles that may read the field (edit roles read it too). Anyone else gets it absent from every answer.'),
    edit: roles.describe('Roles that may write the field (create, update, rollback). Anyone else writing it gets 403.'),
  })
  .describe("Who may read and write this field; absent = the entity's permissions.")
  .meta({ id: 'EntityFieldPermissions' });

/** A field's permissions. */
export type FieldPermissions = z.output<typeof FieldPermissionsSchema>;

/** Issues of field permissions a schema cannot see: base fields (id, version, …) are always visible. */
export function checkFieldPermissions(fields: Readonly<Record<string, { permissions?: FieldPermissions | undefined }>>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [name, field] of Object.entries(fields)) {
    if (field.permissions !== undefined && isBaseField(name))
      issues.push({ field: `fields.${name}.permissions`, message: `Base field ${name} is always visible; permissions apply to business fields only` });
  }
  return issues;
}
