/**
 * The field-access policy (src/governed/field-access.ts, docs/decisions/B34.md): the declaration
 * in the entity document and its JSON Schema, masks per set of roles with a bounded cache, and the
 * maskers every history surface uses.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineEntity, validateEntityDocument, type EntityRecordOf } from 'cellgate';
import { EntityDocumentSchema } from 'cellgate/schemas';
import { FIELD_ACCESS_CACHE_SIZE } from '../../../src/limits.ts';
import { checkPatchWritable, FieldAccess, maskAudit, maskDiff, maskEvent } from '../../../src/governed/field-access.ts';

const DOC = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Person',
  key: 'hr.person',
  version: '1.0.0',
  description: 'A person',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['staff', 'hr', 'admin'], edit: ['staff', 'hr', 'admin'], admin: ['admin'] },
  fields: {
    name: { type: 'string' },
    salary: { type: 'number', optional: true, permissions: { view: ['payroll'], edit: ['hr'] } },
    notes: { type: 'string', optional: true, permissions: { view: ['hr'], edit: ['hr'] } },
  },
  data: {
    filtering: { allowedFields: ['name', 'salary'] },
    searching: { fields: ['name', 'notes'] },
    sorting: { allowedFields: ['salary'], default: { field: 'salary', direction: 'desc' } },
  },
} as const;
const Person = defineEntity(DOC);
const access = new FieldAccess(Person);
const ws = '33333333-3333-4333-8333-333333333333';
const reader = (...roles: string[]) => ({ roles: [], workspaces: { [ws]: roles } });

describe('declaration', () => {
  it('is one strict schema, in the JSON Schema of entity documents', () => {
    const bad = validateEntityDocument({
      ...DOC,
      fields: { ...DOC.fields, salary: { type: 'number', permissions: { view: ['hr'], edit: ['hr'], admin: [] } } },
    });
    expect(bad.valid).toBe(false);
    expect(JSON.stringify(bad)).toContain('fields.salary.permissions');
    const missing = validateEntityDocument({ ...DOC, fields: { ...DOC.fields, salary: { type: 'number', permissions: { view: ['hr'] } } } });
    expect(JSON.stringify(missing)).toContain('fields.salary.permissions.edit');
    const schema = JSON.stringify(z.toJSONSchema(EntityDocumentSchema, { io: 'input' }));
    expect(schema).toContain('EntityFieldPermissions');
  });
});

describe('record type', () => {
  it('a field with its own permissions is an optional member (a reader may not see it)', () => {
    type PersonRecord = EntityRecordOf<typeof Person>;
    expectTypeOf<Pick<PersonRecord, 'name' | 'salary' | 'notes'>>().toEqualTypeOf<{ name: string; salary?: number | null; notes?: string | null }>();
  });
});

describe('masks', () => {
  it('view comes from either list, edit from edit; the entity admin gets no field it is not listed for', () => {
    expect(access.maskFor(reader('payroll'), ws)).toMatchObject({ hidden: ['notes'] });
    expect([...access.maskFor(reader('payroll'), ws).locked]).toEqual(['salary', 'notes']);
    expect(access.maskFor(reader('hr'), ws).hidden).toEqual([]);
    expect(access.maskFor(reader('admin'), ws).hidden).toEqual(['salary', 'notes']);
    // Roles elsewhere do not count; tenant-wide roles count everywhere.
    expect(access.maskFor({ roles: [], workspaces: { other: ['hr'] } }, ws).hidden).toEqual(['salary', 'notes']);
    expect(access.maskFor({ roles: ['hr'], workspaces: {} }, ws).hidden).toEqual([]);
  });

  it('lists see the entity without its hidden fields: filters, search, sorting and the default sort', () => {
    const entity = access.maskFor(reader('staff'), ws).listEntity;
    expect(Object.keys(entity.fields)).not.toContain('salary');
    expect(Object.keys(entity.fields)).toContain('name');
    expect(Object.keys(entity.fields)).not.toContain('notes');
    expect(entity.data).toEqual({ filtering: { allowedFields: ['name'], operators: {} }, searching: { fields: ['name'] }, sorting: { allowedFields: [] } });
  });

  it('is cached per set of relevant roles, bounded, and the same object for the same roles', () => {
    expect(access.maskFor(reader('staff', 'hr'), ws)).toBe(access.maskFor(reader('hr', 'staff', 'unrelated'), ws));
    const many = new FieldAccess(
      defineEntity({
        ...DOC,
        fields: {
          ...DOC.fields,
          ...Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`f${i}`, { type: 'string', optional: true, permissions: { view: [`r${i}`], edit: [] } }])),
        },
      }),
    );
    const cache = (many as unknown as { cache: Map<string, unknown> }).cache;
    // 2^9 subsets of relevant roles: more than the cache holds.
    for (let subset = 0; subset < 512; subset += 1) many.maskOfRoles(new Set(Array.from({ length: 9 }, (_, i) => (subset & (1 << i) ? `r${i}` : 'x'))));
    expect(cache.size).toBe(FIELD_ACCESS_CACHE_SIZE);
  });

  it('an entity without field permissions answers one open mask', () => {
    const open = new FieldAccess(defineEntity({ ...DOC, fields: { name: { type: 'string' } }, data: undefined }));
    expect(open.declared).toBe(false);
    expect(open.maskFor(reader(), ws)).toBe(open.maskFor(reader('hr'), ws));
  });
});

describe('maskers', () => {
  const mask = access.maskFor(reader('staff'), ws);
  it('drop diff operations by path and by from, snapshot members, and keep the rest', () => {
    const diff = [
      { op: 'replace', path: '/name', value: 'A' },
      { op: 'replace', path: '/salary', valueHash: 'hmac-sha256:00' },
      { op: 'copy', from: '/notes', path: '/name' },
      { op: 'add', path: '/notes~1x', value: 1 },
    ];
    expect(maskDiff(diff, mask)).toEqual([diff[0], diff[3]]);
    const record = { diff, snapshot: { name: 'A', salary: { redacted: 'length', length: 5 } } } as never;
    expect(maskAudit(record, mask)).toEqual({ diff: [diff[0], diff[3]], snapshot: { name: 'A' } });
    const event = { change: { kind: 'diff', diff, snapshot: null, redactionApplied: false } } as never;
    expect(maskEvent(event, mask)).toEqual({ change: { kind: 'diff', diff: [diff[0], diff[3]], snapshot: null, redactionApplied: false } });
  });

  it('a JSON Patch may test a field it views but not edits; it may not test or copy a hidden one', () => {
    const payroll = access.maskFor(reader('payroll'), ws);
    expect(() => checkPatchWritable(payroll, [{ op: 'test', path: '/salary' }])).not.toThrow();
    expect(() => checkPatchWritable(payroll, [{ op: 'replace', path: '/salary' }])).toThrow(/salary/);
    expect(() => checkPatchWritable(payroll, [{ op: 'test', path: '/notes' }])).toThrow(/notes/);
    expect(() => checkPatchWritable(payroll, [{ op: 'copy', from: '/notes', path: '/name' }])).toThrow(/notes/);
    expect(() => checkPatchWritable(payroll, [{ op: 'move', from: '/salary', path: '/name' }])).toThrow(/salary/);
  });
});
