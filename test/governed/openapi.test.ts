/**
 * The OpenAPI 3.1 document of governed resources, generated from the operation table and the
 * entity documents: valid per a maintained OpenAPI validator for the three demo resources and for
 * a resource defined here, served at `/v1/openapi.json`, and merged with the contract API's
 * document on the reference host's `/api/openapi.json`.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { createGovernedApi, memoryStorage } from 'cellgate';
import { describe, expect, it } from 'vitest';
import { createReferenceApp, loadConfig } from 'cellgate/host';
import { demoEntity, SECRET } from './support.ts';

/** A cell-isolated resource with every field type, format, enum, nullable and optional flag. */
const measurement = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Measurement',
  key: 'lab.measurement',
  version: '2.1.0',
  description: 'A lab measurement of a cell',
  scope: 'cell-isolated',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
  fields: {
    sample_id: { type: 'string', format: 'uuid' },
    taken_at: { type: 'string', format: 'date-time' },
    value: { type: 'number' },
    count: { type: 'integer', optional: true },
    valid: { type: 'boolean' },
    unit: { type: 'string', enum: ['mg', 'g'], nullable: true },
    contact: { type: 'string', format: 'email', optional: true, sensitive: true },
    source: { type: 'string', format: 'url', optional: true },
    tags: { type: 'array', optional: true },
    extra: { type: 'object', optional: true, nullable: true },
  },
  data: {
    filtering: {
      allowedFields: ['taken_at', 'unit', 'value'],
      operators: { taken_at: ['before', 'after', 'between'], unit: ['equals', 'in'], value: ['gt', 'lt'] },
    },
    searching: { fields: ['unit'] },
    sorting: { allowedFields: ['taken_at', 'value'], default: { field: 'taken_at', direction: 'desc' } },
  },
};

async function validate(document: unknown): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(document as Record<string, unknown>);
  expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
}

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: Array<{ name: string; in: string; required: boolean }>; responses: Record<string, unknown>; security?: unknown; requestBody?: unknown }
    >
  >;
  components: {
    schemas: Record<string, { properties?: Record<string, { type: unknown; format?: string; enum?: unknown[] }>; required?: string[] }>;
    securitySchemes: Record<string, unknown>;
  };
};

describe('governed OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for the demo resources and a resource defined in the test, and served at /v1/openapi.json', async () => {
    const api = createGovernedApi({
      storage: memoryStorage(),
      auth: { secret: SECRET },
      resources: [demoEntity('customer'), demoEntity('invoice'), demoEntity('activity-event'), measurement] as never[],
    });
    const document = api.openapi() as unknown as Doc;
    await validate(document);
    const served = await api(new Request('http://h/v1/openapi.json'));
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual(JSON.parse(JSON.stringify(document)));

    // Paths per scope, every operation of the table.
    const cell = '/v1/workspaces/{workspaceId}/cells/{cellId}/measurements';
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v1/workspaces/{workspaceId}/customers',
        '/v1/workspaces/{workspaceId}/customers/{id}',
        '/v1/activity-events',
        cell,
        `${cell}/{id}`,
        `${cell}/{id}/rollback`,
        `${cell}/{id}/versions`,
        '/v1/audit',
        '/v1/audit/{auditId}',
      ]),
    );
    expect(Object.keys(document.paths[`${cell}/{id}`]!)).toEqual(['get', 'patch', 'delete']);
    // Filters with their operators, sort fields, search.
    const names = document.paths[cell]!.get!.parameters!.map((parameter) => parameter.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'workspaceId',
        'cellId',
        'page',
        'pageSize',
        'sortBy',
        'sortDir',
        'q',
        'takenAt[before]',
        'takenAt[between]',
        'unit',
        'unit[in]',
        'value[gt]',
      ]),
    );
    expect(names).not.toContain('count');
    // Concurrency and idempotency headers; every error code with the envelope; bearer security.
    expect(document.paths[`${cell}/{id}`]!.patch!.parameters!.map((parameter) => `${parameter.in}:${parameter.name}`)).toContain('header:If-Match');
    expect(document.paths[cell]!.post!.parameters!.map((parameter) => `${parameter.in}:${parameter.name}`)).toContain('header:Idempotency-Key');
    expect(Object.keys(document.paths[`${cell}/{id}`]!.patch!.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '409', '412', '413', '415', '429', '500']),
    );
    expect(Object.keys(document.paths[cell]!.post!.responses)).toEqual(expect.arrayContaining(['201', '422']));
    expect(document.paths[cell]!.get!.security).toEqual([{ bearerAuth: [] }]);
    expect(document.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    // Record schema: camelCase business fields with their types, base fields, nullable/optional as null.
    const record = document.components.schemas.Measurement!;
    expect(record.properties).toMatchObject({
      sampleId: { type: 'string', format: 'uuid' },
      takenAt: { type: 'string', format: 'date-time' },
      count: { type: ['integer', 'null'] },
      unit: { type: ['string', 'null'], enum: ['mg', 'g', null] },
      source: { type: ['string', 'null'], format: 'uri' },
      id: { type: 'string', format: 'uuid' },
      version: { type: 'integer' },
      deletedAt: { type: ['string', 'null'] },
    });
    expect(document.components.schemas.MeasurementCreate!.required).toEqual(['sampleId', 'takenAt', 'value', 'valid', 'unit']);
    // Rollback is documented only where it is enabled (activity events are tier-3).
    expect(document.paths['/v1/activity-events/{id}/rollback']).toBeUndefined();
  });

  it('the reference host merges both halves into /api/openapi.json, still valid', async () => {
    const app = await createReferenceApp(loadConfig({ PORT: '0', DATABASE_URL: 'memory:', CELLGATE_JWT_SECRET: SECRET }));
    try {
      const answer = await app.handler(new Request('http://h/api/openapi.json'));
      expect(answer.status).toBe(200);
      const document = (await answer.json()) as Doc & { tags: Array<{ name: string }> };
      await validate(document);
      expect(Object.keys(document.paths)).toEqual(
        expect.arrayContaining([
          '/health',
          '/api/validate/manifest',
          '/v1/workspaces/{workspaceId}/customers',
          '/v1/workspaces/{workspaceId}/cells/{cellId}/invoices',
          '/v1/activity-events',
          '/v1/audit',
        ]),
      );
      expect(document.tags.map((tag) => tag.name)).toEqual(expect.arrayContaining(['schemas', 'customers', 'invoices', 'activity-events', 'audit']));
    } finally {
      await app.close();
    }
  });
});
