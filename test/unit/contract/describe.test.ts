/** Schema descriptions (`GET /api/schemas/*`), the version check and the JSON Schema documents. */
import { describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import { CellgateError } from 'cellgate';
import {
  CapabilitySchemaDescriptionSchema,
  EntitySchemaDescriptionSchema,
  ManifestSchemaDescriptionSchema,
  PageSchemaDescriptionSchema,
  checkSchemaVersion,
  describeCapabilitySchema,
  describeEntitySchema,
  describeManifestSchema,
  describePageSchema,
  entityJsonSchema,
  manifestJsonSchema,
} from 'cellgate/schemas';
import { allRules, capabilityGroup, ruleGroups } from '../../../src/contract/validate/rules/index.ts';
import { crmManifest } from './validate-fixtures.ts';

const keys = (fields: { key: string }[]) => fields.map((field) => field.key);

function thrown(run: () => unknown): CellgateError {
  try {
    run();
  } catch (error) {
    if (error instanceof CellgateError) return error;
    throw error;
  }
  throw new Error('expected a CellgateError');
}

describe('describeManifestSchema', () => {
  const d = describeManifestSchema();

  it('matches its declared shape with members in order name, version, fields, semanticRules, notes, spec', () => {
    expect(ManifestSchemaDescriptionSchema.strict().parse(d)).toEqual(d);
    expect(Object.keys(d)).toEqual(['name', 'version', 'fields', 'semanticRules', 'notes', 'spec']);
    expect(d.name).toBe('CellManifestV1');
    expect(d.version).toBe('platform/v1alpha1');
  });

  it('derives root and spec fields from the zod schema', () => {
    expect(d.fields).toEqual([
      { key: 'apiVersion', type: 'literal("platform/v1alpha1")', required: true, description: expect.stringContaining('platform/v1alpha1') },
      { key: 'kind', type: 'literal("Cell")', required: true, description: expect.any(String) },
      { key: 'metadata', type: 'CellMetadata', required: true, description: expect.any(String) },
      { key: 'spec', type: 'CellSpec', required: true, description: expect.any(String) },
    ]);
    expect(d.spec.map(({ key, type, required }) => [key, type, required])).toEqual([
      ['mount', 'CellMountDefinition', true],
      ['appShell', 'AppShellDefinition', false],
      ['entities', 'EntityDefinition[]', false],
      ['pages', 'PageDefinition[]', false],
      ['navigation', 'NavigationDefinition', false],
      ['roles', 'RoleDefinition[]', false],
    ]);
    for (const field of [...d.fields, ...d.spec]) expect(field.description).not.toBe('');
  });

  it('lists the manifest-level rules of the rule table, starting with apiVersion and kind', () => {
    expect(d.semanticRules).toEqual(allRules.filter((rule) => rule.scope === 'manifest').map((rule) => rule.description));
    expect(d.semanticRules[0]).toContain('apiVersion');
    expect(d.semanticRules[1]).toContain('kind');
    expect(d.notes.length).toBeGreaterThanOrEqual(3);
  });

  it('hands out copies, so a caller cannot change the next answer', () => {
    describeManifestSchema().fields.pop();
    expect(describeManifestSchema().fields).toHaveLength(4);
  });
});

describe('describeEntitySchema', () => {
  it('has the 14 fields of the manifest-form entity with key snake_case and description optional', () => {
    const d = describeEntitySchema();
    expect(EntitySchemaDescriptionSchema.strict().parse(d)).toEqual(d);
    expect(keys(d.fields)).toEqual([
      'key',
      'name',
      'pluralName',
      'description',
      'fields',
      'relations',
      'computed',
      'lifecycle',
      'events',
      'capabilities',
      'policies',
      'fieldPolicies',
      'validation',
      'governance',
    ]);
    expect(d.fields[0]).toMatchObject({ type: 'string (snake_case)', required: true });
    expect(d.fields.filter((field) => field.required).map((field) => field.key)).toEqual(['key', 'name', 'pluralName', 'fields']);
    expect(d.semanticRules).toEqual(ruleGroups.entity.map((rule) => rule.description));
  });
});

describe('describePageSchema', () => {
  it('lists the 9 page fields and the 6 page types', () => {
    const d = describePageSchema();
    expect(PageSchemaDescriptionSchema.strict().parse(d)).toEqual(d);
    expect(keys(d.fields)).toEqual(['key', 'type', 'title', 'path', 'entity', 'menu', 'options', 'dataContext', 'dataProviders']);
    expect(d.pageTypes?.map(({ type, entityRequired }) => [type, entityRequired])).toEqual([
      ['entity-list', true],
      ['entity-detail', true],
      ['entity-create', true],
      ['entity-edit', true],
      ['dashboard', false],
      ['custom', false],
    ]);
    expect(d).not.toHaveProperty('pageType');
    expect(d.semanticRules).toEqual(ruleGroups.page.map((rule) => rule.description));
  });

  it('a known filter answers the one pageType instead of pageTypes; empty means none', () => {
    const d = describePageSchema('entity-detail');
    expect(d.pageType).toEqual({ type: 'entity-detail', entityRequired: true, description: expect.stringContaining(':id') });
    expect(d).not.toHaveProperty('pageTypes');
    expect(Object.keys(d)).toEqual(['name', 'version', 'fields', 'semanticRules', 'pageType']);
    expect(describePageSchema('')).toHaveProperty('pageTypes');
  });

  it('an unknown filter is a 400 VALIDATION_ERROR listing the valid types', () => {
    const error = thrown(() => describePageSchema('wizard'));
    const message = 'Unknown page type: wizard. Valid types: entity-list, entity-detail, entity-create, entity-edit, dashboard, custom';
    expect([error.code, error.status, error.message]).toEqual(['VALIDATION_ERROR', 400, message]);
    expect(error.details).toEqual({ fields: [{ path: 'type', message }] });
  });
});

describe('describeCapabilitySchema', () => {
  it('lists the fields of docs/decisions/A05.md and each type with its required fields', () => {
    const d = describeCapabilitySchema();
    expect(CapabilitySchemaDescriptionSchema.strict().parse(d)).toEqual(d);
    expect(keys(d.fields)).toEqual(['key', 'type', 'name', 'description', 'scope', 'input', 'transition', 'format', 'target']);
    expect(d.fields.filter((field) => field.required).map((field) => field.key)).toEqual(['key', 'type']);
    expect(d.capabilityTypes?.map(({ type, requiredFields }) => [type, requiredFields])).toEqual([
      ['transition', ['key', 'type', 'transition']],
      ['mutation', ['key', 'type']],
      ['workflow', ['key', 'type']],
      ['export', ['key', 'type', 'format']],
      ['integration', ['key', 'type', 'target']],
    ]);
    expect(d.semanticRules).toEqual(capabilityGroup.map((rule) => rule.description));
  });

  it('filters to one capabilityType, and refuses unknown types', () => {
    expect(describeCapabilitySchema('export').capabilityType).toEqual({
      type: 'export',
      description: expect.any(String),
      requiredFields: ['key', 'type', 'format'],
    });
    const error = thrown(() => describeCapabilitySchema('email'));
    expect(error.message).toBe('Unknown capability type: email. Valid types: transition, mutation, workflow, export, integration');
    expect(error.code).toBe('VALIDATION_ERROR');
  });
});

describe('checkSchemaVersion', () => {
  it('accepts no version, latest and v1alpha1', () => {
    for (const version of [undefined, null, '', 'latest', 'v1alpha1']) expect(() => checkSchemaVersion(version)).not.toThrow();
  });

  it('refuses anything else naming the supported values', () => {
    const error = thrown(() => checkSchemaVersion('v9'));
    expect([error.code, error.status]).toEqual(['VALIDATION_ERROR', 400]);
    expect(error.message).toBe('Unsupported schema version: "v9". Supported versions: latest, v1alpha1');
    expect(error.details).toEqual({ fields: [{ path: 'version', message: error.message }] });
  });
});

describe('JSON Schema', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });

  it('is draft 2020-12, memoised, and accepts the CRM manifest and its entities', () => {
    const manifest = manifestJsonSchema();
    expect(manifest.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(manifestJsonSchema()).toEqual(manifest);
    const validateManifestSchema = ajv.compile(manifest);
    expect(validateManifestSchema(crmManifest())).toBe(true);
    expect(validateManifestSchema({ ...crmManifest(), kind: 'Other' })).toBe(false);
    const validateEntitySchema = ajv.compile(entityJsonSchema());
    for (const entity of crmManifest().spec.entities) expect(validateEntitySchema(entity)).toBe(true);
    expect(validateEntitySchema({ key: 'x' })).toBe(false);
  });
});
