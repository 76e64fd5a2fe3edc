/**
 * Field defaults in the entity document (docs/decisions/B31.md): constants are checked against the
 * field at load, generators are objects (`{ "$generate": "now" | "uuid" }`) that fit their field,
 * `$generate` is reserved, and a create that omits a defaulted field gets the default.
 */
import { describe, expect, it } from 'vitest';
import { ConfigurationError, createGovernedService, defineEntity, memoryStorage, validateEntityDocument } from 'cellgate';
import { workspaceAdminContext } from '../../src/testing/storage-conformance-fixtures.ts';

const documentWith = (fields: Record<string, unknown>) => ({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Task',
  key: 'pm.task',
  version: '1.0.0',
  description: 'A task.',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
  fields: { title: { type: 'string' }, ...fields },
});

const errors = (fields: Record<string, unknown>) => validateEntityDocument(documentWith(fields)).errors;

describe('field defaults', () => {
  it('accepts constants of the field type and generators that fit the field', () => {
    expect(
      errors({
        status: { type: 'string', enum: ['OPEN', 'DONE'], default: 'OPEN' },
        count: { type: 'integer', default: 0 },
        ratio: { type: 'number', default: 0.5 },
        done: { type: 'boolean', default: false },
        tags: { type: 'array', default: [] },
        meta: { type: 'object', default: { a: 1 } },
        note: { type: 'string', nullable: true, default: null },
        opened_at: { type: 'string', format: 'date-time', default: { $generate: 'now' } },
        due_at: { type: 'string', format: 'date-time', default: '2026-01-01T00:00:00.000Z' },
        ref: { type: 'string', format: 'uuid', default: { $generate: 'uuid' } },
        code: { type: 'string', default: { $generate: 'uuid' } },
        word: { type: 'string', default: 'now' },
      }),
    ).toEqual([]);
  });

  it('refuses a constant of another type, outside the enum, null on a non-nullable field, or a date-time not in canonical form', () => {
    expect(errors({ count: { type: 'integer', default: '1' } })).toEqual([{ field: 'fields.count.default', message: 'Must be an integer (the field type)' }]);
    expect(errors({ count: { type: 'integer', default: 1.5 } })[0]?.field).toBe('fields.count.default');
    expect(errors({ status: { type: 'string', enum: ['OPEN'], default: 'CLOSED' } })).toEqual([
      { field: 'fields.status.default', message: 'Must be one of: OPEN' },
    ]);
    expect(errors({ note: { type: 'string', default: null } })[0]?.message).toMatch(/not nullable/);
    expect(errors({ due_at: { type: 'string', format: 'date-time', default: '2026-01-01' } })[0]?.message).toMatch(/canonical UTC form/);
    expect(errors({ ref: { type: 'string', format: 'uuid', default: 'not-a-uuid' } })[0]?.message).toMatch(/UUID/);
  });

  it('refuses a generator that does not fit its field, an unknown generator, and a default on a base field', () => {
    expect(errors({ count: { type: 'integer', default: { $generate: 'now' } } })[0]?.message).toMatch(/needs a field of type "string" with format "date-time"/);
    expect(errors({ at: { type: 'string', default: { $generate: 'now' } } })[0]?.field).toBe('fields.at.default');
    expect(errors({ at: { type: 'string', format: 'date-time', default: { $generate: 'uuid' } } })[0]?.message).toMatch(/"uuid" } needs/);
    // `$generate` is reserved even on an object field: a typo is never stored as a constant.
    expect(errors({ meta: { type: 'object', default: { $generate: 'later' } } })[0]?.message).toMatch(/Unknown generator/);
    expect(errors({ created_at: { type: 'string', format: 'date-time', nullable: false, default: { $generate: 'now' } } })[0]?.message).toMatch(
      /takes only type, format, nullable and description/,
    );
  });

  it('checks e-mail and URL constants when the resource is created', () => {
    const entity = defineEntity(documentWith({ email: { type: 'string', format: 'email', default: 'nobody' } }) as Parameters<typeof defineEntity>[0]);
    expect(() => createGovernedService({ entity, storage: memoryStorage() })).toThrow(ConfigurationError);
    expect(() => createGovernedService({ entity, storage: memoryStorage() })).toThrow(/fields\.email\.default/);
  });

  it('fills an omitted field with its default on create, a fresh value per create for generators, and keeps a value sent', async () => {
    const entity = defineEntity(
      documentWith({
        status: { type: 'string', enum: ['OPEN', 'DONE'], default: 'OPEN' },
        tags: { type: 'array', default: ['new'] },
        ref: { type: 'string', format: 'uuid', default: { $generate: 'uuid' } },
        opened_at: { type: 'string', format: 'date-time', default: { $generate: 'now' } },
      }) as Parameters<typeof defineEntity>[0],
    );
    const storage = memoryStorage();
    const service = createGovernedService({ entity, storage });
    await storage.migrate([service.model]);
    const context = workspaceAdminContext([], { requestId: 'r', traceId: null, ip: null, userAgent: null });
    const a = await service.create(context, { title: 'A' });
    const b = await service.create(context, { title: 'B', status: 'DONE' });
    expect(a.data).toMatchObject({ status: 'OPEN', tags: ['new'] });
    expect(b.data.status).toBe('DONE');
    expect(a.data.ref).not.toBe(b.data.ref);
    expect(Number.isNaN(Date.parse(a.data.openedAt as string))).toBe(false);
    // The constant is copied per record, never shared with the document.
    (a.data.tags as string[]).push('changed');
    expect((await service.get(context, b.data.id)).data.tags).toEqual(['new']);
  });
});

describe('renamed_from', () => {
  it('names a former field: snake_case, gone from the document, claimed once, never on a base field', () => {
    expect(errors({ label: { type: 'string', renamed_from: 'name' } })).toEqual([]);
    expect(errors({ label: { type: 'string', renamed_from: 'title' } })[0]).toEqual({
      field: 'fields.label.renamed_from',
      message: '"title" is still a field of this entity; a renamed field\'s former name must be gone',
    });
    expect(errors({ label: { type: 'string', renamed_from: 'Name' } })[0]?.message).toMatch(/snake_case/);
    expect(errors({ a: { type: 'string', renamed_from: 'old' }, b: { type: 'string', renamed_from: 'old' } })[0]?.message).toMatch(
      /already the former name of "a"/,
    );
    expect(errors({ label: { type: 'string', renamed_from: 'created_by' } })[0]?.field).toBe('fields.label.renamed_from');
  });

  it('moves the values to the new name on the memory driver, which has no schema to migrate', async () => {
    const storage = memoryStorage();
    const v1 = createGovernedService({ entity: defineEntity(documentWith({}) as Parameters<typeof defineEntity>[0]), storage });
    await storage.migrate([v1.model]);
    const context = workspaceAdminContext([], { requestId: 'r', traceId: null, ip: null, userAgent: null });
    const created = await v1.create(context, { title: 'Kept' });
    const renamed = defineEntity({ ...documentWith({}), fields: { label: { type: 'string', renamed_from: 'title' } } } as Parameters<typeof defineEntity>[0]);
    const v2 = createGovernedService({ entity: renamed, storage });
    await storage.migrate([v2.model]);
    expect((await v2.get(context, created.data.id)).data).toMatchObject({ label: 'Kept' });
    expect((await v2.get(context, created.data.id)).data).not.toHaveProperty('title');
  });
});
