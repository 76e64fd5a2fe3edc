/** `references` in the entity definition document (docs/entities.md#relations): parsing, rules, storage model, JSON Schema. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EntityDocumentSchema, toStorageModel, validateEntityDocument, defineEntity, filteringOf } from '../../src/entity-document/index.ts';

const document = (fields: Record<string, unknown>) => ({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Task',
  key: 'pm.task',
  version: '1.0.0',
  description: 'A task',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
  fields: { title: { type: 'string' }, ...fields },
});

describe('references in the entity document', () => {
  it('accepts a reference on a uuid field, restrict by default, and a pinned major', () => {
    const task = defineEntity(
      document({
        project_id: { type: 'string', format: 'uuid', references: { entity: 'pm.project' } },
        owner_id: { type: 'string', format: 'uuid', nullable: true, references: { entity: 'hr.person@v2', on_delete: 'set_null' } },
      }) as never,
    );
    expect(task.fields.project_id?.references).toEqual({ entity: 'pm.project', on_delete: 'restrict' });
    expect(toStorageModel(task).referenceFields).toEqual(['project_id', 'owner_id']);
    // A reference field is filterable by equals and in without a data block entry.
    expect(filteringOf(task)).toEqual({ allowedFields: ['project_id', 'owner_id'], operators: { project_id: ['equals', 'in'], owner_id: ['equals', 'in'] } });
  });

  it('leaves the storage model of an entity without references as it was', () => {
    expect(toStorageModel(defineEntity(document({}) as never))).not.toHaveProperty('referenceFields');
  });

  it.each([
    [
      { project_id: { type: 'string', references: { entity: 'pm.project' } } },
      'fields.project_id.references',
      'only allowed on type "string" with format "uuid"',
    ],
    [
      { project_id: { type: 'string', format: 'uuid', references: { entity: 'pm.project', on_delete: 'set_null' } } },
      'fields.project_id.references.on_delete',
      'nullable',
    ],
    [{ project_id: { type: 'string', format: 'uuid', references: { entity: 'Project' } } }, 'fields.project_id.references.entity', 'entity key'],
    [{ project_id: { type: 'string', format: 'uuid', references: { entity: 'pm.project@2' } } }, 'fields.project_id.references.entity', 'entity key'],
    [
      { project_id: { type: 'string', format: 'uuid', references: { entity: 'pm.project', on_delete: 'nothing' } } },
      'fields.project_id.references.on_delete',
      '',
    ],
    [{ project_id: { type: 'string', format: 'uuid', references: { entity: 'pm.project', cascade: true } } }, 'fields.project_id.references', ''],
    [{ created_by: { type: 'string', format: 'uuid', nullable: false, references: { entity: 'hr.person' } } }, 'fields.created_by', 'takes only'],
  ])('refuses %j at its path', (fields, path, message) => {
    const { valid, errors } = validateEntityDocument(document(fields));
    expect(valid).toBe(false);
    expect(errors.find((error) => error.field === path)?.message ?? '').toContain(message);
  });

  it('is in the JSON Schema of the document', () => {
    const schema = JSON.stringify(z.toJSONSchema(EntityDocumentSchema, { io: 'input', unrepresentable: 'any' }));
    expect(schema).toContain('"on_delete"');
    expect(schema).toContain('"set_null"');
  });
});
