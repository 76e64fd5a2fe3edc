/**
 * The OpenAPI 3.1 document of governed resources, generated from the operation table and each
 * entity document: paths per scope, record and list schemas (camelCase, base fields, `meta`),
 * filters with their operators, sort fields and search, `If-Match` / `Idempotency-Key`, every
 * error code with the envelope, and bearer security. Nothing here is written by hand per
 * resource, so the document follows the table and the entities.
 */
import { z } from 'zod';
import {
  BASE_FIELDS,
  entityReference,
  filteringOf,
  isBaseField,
  snakeToCamel,
  type EntityDefinitionDocument,
  type FieldDescriptor,
} from '../entity-document/index.ts';
import { errorStatus, type ErrorCode } from '../errors.ts';
import { ErrorEnvelopeSchema } from '../http/error-envelope.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../limits.ts';
import { AuditExportQuerySchema, COMMON_ERRORS, GOVERNED_OPERATIONS, SCOPE_PREFIX, TARGET_SUFFIX, type GovernedOperation } from './http/operations.ts';
import { RollbackBodySchema } from './service-schemas.ts';

type Json = Record<string, unknown>;

/** A resource as the document describes it. */
export interface DocumentedResource {
  entity: EntityDefinitionDocument;
  resourceName: string;
  rollbackEnabled: boolean;
}

/** What the document says besides its resources. */
export interface GovernedOpenApiSettings {
  /** Prefix of every path (`""` or `/api`). */
  basePath: string;
  /** Document `/v1/audit` and `/v1/audit/{auditId}`. */
  audit: boolean;
  /** @default 'cellgate governed resources' */
  title?: string;
  /** @default '1.0.0' */
  version?: string;
}

const FORMAT: Record<string, string> = { 'date-time': 'date-time', uuid: 'uuid', email: 'email', url: 'uri' };
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const pascal = (name: string): string => name.replace(/(^|[-_])([a-z0-9])/g, (_m, _s, c: string) => c.toUpperCase());

/** The JSON Schema of one field's value. */
function fieldSchema(field: FieldDescriptor, nullable = field.nullable): Json {
  const schema: Json = { type: nullable ? [field.type, 'null'] : field.type };
  if (field.format !== undefined && FORMAT[field.format]) schema.format = FORMAT[field.format];
  if (field.enum !== undefined) schema.enum = nullable ? [...field.enum, null] : [...field.enum];
  if (field.description !== undefined) schema.description = field.description;
  // A reference names its target entity and delete rule as a vendor extension (docs/entities.md#relations).
  if (field.references !== undefined) schema['x-cellgate-references'] = { entity: field.references.entity, onDelete: field.references.on_delete };
  return schema;
}

const businessFields = (entity: EntityDefinitionDocument) => Object.entries(entity.fields).filter(([name]) => !isBaseField(name));

/** Record (answer), create body and merge-patch body schemas of one entity. */
function entitySchemas(entity: EntityDefinitionDocument, name: string): Record<string, Json> {
  // Every record carries every base field on the wire; workspace and cell are null where the scope has none.
  const baseProperties = Object.fromEntries(
    Object.entries(BASE_FIELDS).map(([field, descriptor]) => [
      snakeToCamel(field),
      fieldSchema(descriptor, descriptor.nullable || field === 'workspace_id' || field === 'cell_id'),
    ]),
  );
  const business = businessFields(entity);
  const recordProperties = {
    ...baseProperties,
    ...Object.fromEntries(business.map(([field, descriptor]) => [snakeToCamel(field), fieldSchema(descriptor, descriptor.nullable || descriptor.optional)])),
  };
  const inputProperties = Object.fromEntries(
    business.map(([field, descriptor]) => [snakeToCamel(field), fieldSchema(descriptor, descriptor.nullable || descriptor.optional)]),
  );
  return {
    [name]: {
      type: 'object',
      description: `A ${entity.name} record (camelCase; base fields set by the server).`,
      properties: recordProperties,
      required: Object.keys(recordProperties),
    },
    [`${name}Answer`]: { type: 'object', properties: { data: ref(name), meta: ref('RecordMeta') }, required: ['data', 'meta'] },
    [`${name}Page`]: {
      type: 'object',
      properties: {
        data: { type: 'array', items: ref(name) },
        meta: {
          type: 'object',
          properties: {
            total: { type: 'integer' },
            page: { type: 'integer' },
            pageSize: { type: 'integer' },
            asOf: { type: 'string', format: 'date-time', description: 'Lists read as of an instant only (docs/time-travel.md).' },
            hiddenFields: {
              type: 'array',
              items: { type: 'string' },
              description: 'Fields this caller may not view, absent from `data` (docs/field-access.md); present only when one is hidden.',
            },
          },
          required: ['total', 'page', 'pageSize'],
        },
      },
      required: ['data', 'meta'],
    },
    [`${name}Create`]: {
      type: 'object',
      additionalProperties: false,
      properties: inputProperties,
      // A field with a default may be left out of a create: it takes the default.
      required: business.filter(([, descriptor]) => !descriptor.optional && descriptor.default === undefined).map(([field]) => snakeToCamel(field)),
    },
    [`${name}Update`]: {
      description:
        'Merge form `{ expectedVersion, ...fields }` or JSON Patch form `{ expectedVersion, patch: [...] }`; `If-Match` may replace `expectedVersion`.',
      oneOf: [
        { type: 'object', additionalProperties: false, properties: { expectedVersion: { type: 'integer', minimum: 1 }, ...inputProperties } },
        {
          type: 'object',
          additionalProperties: false,
          properties: { expectedVersion: { type: 'integer', minimum: 1 }, patch: { type: 'array', maxItems: 100, items: ref('JsonPatchOperation') } },
          required: ['patch'],
        },
      ],
    },
  };
}

/** Schemas shared by every resource. */
function sharedSchemas(): Record<string, Json> {
  // A schema with a registered id comes back as `{ $ref, $defs }`: keep the definition itself.
  const plain = (schema: z.ZodType): Json => {
    const { $schema: _drop, $ref, $defs, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
    return typeof $ref === 'string' ? ((($defs ?? {}) as Record<string, Json>)[$ref.split('/').pop()!] ?? rest) : rest;
  };
  return {
    Error: plain(ErrorEnvelopeSchema),
    RecordMeta: {
      type: 'object',
      properties: {
        version: { type: 'integer' },
        createdAt: { type: 'string', format: 'date-time' },
        updatedAt: { type: 'string', format: 'date-time' },
        updatedBy: { type: 'string' },
        asOf: { type: 'string', format: 'date-time', description: 'Historical reads only (docs/time-travel.md): the instant the state is read at.' },
        hiddenFields: {
          type: 'array',
          items: { type: 'string' },
          description: 'Fields this caller may not view, absent from `data` (docs/field-access.md); present only when one is hidden.',
        },
      },
      required: ['version', 'createdAt', 'updatedAt', 'updatedBy'],
    },
    ChangesAnswer: {
      type: 'object',
      description: 'One RFC 6902 patch that turns version `from` into version `to` (docs/time-travel.md).',
      properties: {
        data: { type: 'array', items: ref('JsonPatchOperation') },
        meta: { type: 'object', properties: { from: { type: 'integer' }, to: { type: 'integer' } }, required: ['from', 'to'] },
      },
      required: ['data', 'meta'],
    },
    JsonPatchOperation: {
      type: 'object',
      properties: { op: { enum: ['add', 'remove', 'replace', 'move', 'copy', 'test'] }, path: { type: 'string' }, from: { type: 'string' }, value: {} },
      required: ['op', 'path'],
    },
    RollbackRequest: plain(RollbackBodySchema),
    HistoryMeta: { type: 'object', properties: { limit: { type: 'integer' }, nextCursor: { type: ['string', 'null'] } }, required: ['limit', 'nextCursor'] },
    AuditRecord: {
      type: 'object',
      description: 'An audit record (camelCase), redacted when written.',
      properties: {
        id: { type: 'string', format: 'uuid' },
        tenantId: { type: 'string' },
        workspaceId: { type: ['string', 'null'] },
        cellId: { type: ['string', 'null'] },
        resourceType: { type: 'string' },
        resourceId: { type: 'string' },
        resourceVersion: { type: 'integer' },
        eventType: { type: 'string' },
        actorId: { type: 'string' },
        occurredAt: { type: 'string', format: 'date-time' },
        diff: {},
        snapshot: {},
        reason: { type: ['string', 'null'] },
        changeSetId: {
          type: ['string', 'null'],
          format: 'uuid',
          description: 'The change set of the write (`api.transaction`, a cascade); null for a write on its own.',
        },
      },
      required: ['id', 'tenantId', 'resourceType', 'resourceId', 'resourceVersion', 'eventType', 'actorId', 'occurredAt'],
    },
    AuditPage: { type: 'object', properties: { data: { type: 'array', items: ref('AuditRecord') }, meta: ref('HistoryMeta') }, required: ['data', 'meta'] },
    AuditAnswer: { type: 'object', properties: { data: ref('AuditRecord') }, required: ['data'] },
    VersionPage: {
      type: 'object',
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              version: { type: 'integer' },
              eventType: { type: 'string' },
              occurredAt: { type: 'string', format: 'date-time' },
              actorId: { type: 'string' },
              snapshot: { type: ['object', 'null'] },
            },
            required: ['version', 'eventType', 'occurredAt', 'actorId', 'snapshot'],
          },
        },
        meta: ref('HistoryMeta'),
      },
      required: ['data', 'meta'],
    },
  };
}

const param = (name: string, where: 'path' | 'query' | 'header', schema: Json, description?: string, required = where === 'path'): Json => ({
  name,
  in: where,
  required,
  schema,
  ...(description ? { description } : {}),
});
const uuidParam = (name: string, description: string) => param(name, 'path', { type: 'string', format: 'uuid' }, description);

/** Query parameters of a collection GET: paging, sorting, search, every filter and operator. */
function listParameters(entity: EntityDefinitionDocument): Json[] {
  const data = entity.data;
  const sortable = ['createdAt', 'updatedAt', ...(data?.sorting?.allowedFields ?? []).map(snakeToCamel)];
  const list: Json[] = [
    param('page', 'query', { type: 'integer', minimum: 1, default: 1 }, '1-based page number.'),
    param('pageSize', 'query', { type: 'integer', minimum: 1, default: DEFAULT_PAGE_SIZE }, `Records per page, clamped to ${MAX_PAGE_SIZE}.`),
    param('sortBy', 'query', { type: 'string', enum: [...new Set(sortable)] }, 'Sort field; ties are broken by id.'),
    param('sortDir', 'query', { type: 'string', enum: ['asc', 'desc'] }),
    param('includeDeleted', 'query', { type: 'boolean', default: false }, 'Also list soft-deleted records (admin access and the read permission).'),
    param(
      'asOf',
      'query',
      { type: 'string', format: 'date-time' },
      'The page as it was at this instant: filters, sort and paging over the states current then (needs `audit:read`; docs/time-travel.md).',
    ),
  ];
  if ((data?.searching?.fields ?? []).length > 0)
    list.push(param('q', 'query', { type: 'string' }, `Case-insensitive search over ${data!.searching!.fields.map(snakeToCamel).join(', ')}.`));
  const filtering = filteringOf(entity);
  for (const field of filtering.allowedFields) {
    const descriptor = entity.fields[field] ?? BASE_FIELDS[field];
    if (descriptor === undefined) continue;
    const camel = snakeToCamel(field);
    for (const operator of filtering.operators[field] ?? ['equals']) {
      const many = operator === 'in' || operator === 'between';
      const text = operator === 'contains' || operator === 'startsWith';
      const schema = many
        ? { type: 'string', description: operator === 'between' ? 'low,high' : 'comma-separated values' }
        : text
          ? { type: 'string' }
          : fieldSchema(descriptor, false);
      list.push(param(operator === 'equals' ? camel : `${camel}[${operator}]`, 'query', schema, `Filter: ${camel} ${operator}.`));
    }
  }
  return list;
}

const HEADER_DOC: Record<string, { name: string; description: string }> = {
  'if-match': { name: 'If-Match', description: 'Entity tag of the version you hold, e.g. `"3"`; stale → 412 PRECONDITION_FAILED.' },
  'idempotency-key': { name: 'Idempotency-Key', description: 'Repeat a create safely: the same key and body replay the first answer; another body → 422.' },
  prefer: {
    name: 'Prefer',
    description:
      '`count=exact|planned|estimated` (PostgREST convention): how `meta.total` is counted; `meta.count` says whether it was counted or estimated, `Preference-Applied` echoes the preference.',
  },
};

const ERROR_TEXT: Partial<Record<ErrorCode, string>> = {
  UNAUTHENTICATED: 'Missing, malformed or expired bearer token.',
  FORBIDDEN: 'Your roles or permissions do not allow this here.',
  PLAN_RESTRICTION: 'Your plan does not include this resource.',
  NOT_FOUND: 'No such record in your tenant, workspace and cell.',
  HISTORY_PURGED: 'Retention removed the stored state of that version or instant (docs/time-travel.md).',
  TIME_TRAVEL_DISABLED: 'Tier-3 entities keep minimal history: no as-of reads, versions or changes.',
  CONFLICT: 'The body or query `expectedVersion` is stale (`details.currentVersion`).',
  PRECONDITION_FAILED: 'The `If-Match` version is stale (`details.currentVersion`).',
  RATE_LIMITED: 'Too many requests; see `Retry-After`.',
  REFERENCE_NOT_FOUND: 'A reference field names no live record of its entity in this scope (`details.fields`).',
  REFERENCED: 'Live records reference this one (`on_delete: restrict`, `details.count`), or a cascade would pass its bound.',
};

/** The responses of an operation: its success answer and every error code, grouped by status. */
function responses(operation: GovernedOperation, success: Json): Json {
  const byStatus = new Map<string, ErrorCode[]>();
  for (const code of new Set([...COMMON_ERRORS, ...operation.errors]))
    byStatus.set(String(errorStatus[code]), [...(byStatus.get(String(errorStatus[code])) ?? []), code]);
  const errors = Object.fromEntries(
    [...byStatus].map(([status, codes]) => [
      status,
      {
        description: codes.map((code) => ERROR_TEXT[code] ?? code).join(' '),
        content: {
          'application/json': {
            schema: ref('Error'),
            examples: Object.fromEntries(codes.map((code) => [code, { value: { error: code, message: ERROR_TEXT[code] ?? code } }])),
          },
        },
      },
    ]),
  );
  return { [String(operation.status ?? 200)]: success, ...errors };
}

/** Builds the document of `resources`. */
export function buildGovernedOpenApi(resources: readonly DocumentedResource[], settings: GovernedOpenApiSettings): Json {
  const schemas: Record<string, Json> = sharedSchemas();
  const paths: Record<string, Record<string, Json>> = {};
  const add = (path: string, method: string, operation: Json) => ((paths[`${settings.basePath}${path}`] ??= {})[method.toLowerCase()] = operation);
  const security = [{ bearerAuth: [] }];

  for (const { entity, resourceName, rollbackEnabled } of resources) {
    const name = pascal(entity.name);
    Object.assign(schemas, entitySchemas(entity, name));
    const tag = resourceName;
    const scopeParams = [
      ...(entity.scope === 'system-global' ? [] : [uuidParam('workspaceId', 'Workspace id.')]),
      ...(entity.scope === 'cell-isolated' ? [uuidParam('cellId', 'Cell id.')] : []),
    ];
    for (const operation of GOVERNED_OPERATIONS) {
      if (operation.service === undefined || (operation.name === 'rollback' && !rollbackEnabled)) continue;
      const path = `${SCOPE_PREFIX[entity.scope]}/${resourceName}${TARGET_SUFFIX[operation.target]}`;
      const parameters = [
        ...scopeParams,
        ...(operation.target === 'collection' ? [] : [uuidParam('id', 'Record id.')]),
        ...(operation.target === 'version' ? [param('version', 'path', { type: 'integer', minimum: 1 }, 'A version of the record.')] : []),
      ];
      if (operation.name === 'list') parameters.push(...listParameters(entity));
      else parameters.push(...queryParameters(operation));
      for (const header of Object.keys(operation.headers?.shape ?? {}))
        parameters.push(param(HEADER_DOC[header]!.name, 'header', { type: 'string' }, HEADER_DOC[header]!.description));
      const answer =
        operation.answer === 'list'
          ? `${name}Page`
          : operation.answer === 'record'
            ? `${name}Answer`
            : operation.answer === 'changes'
              ? 'ChangesAnswer'
              : 'VersionPage';
      const body =
        operation.name === 'create'
          ? `${name}Create`
          : operation.name === 'update'
            ? `${name}Update`
            : operation.name === 'rollback'
              ? 'RollbackRequest'
              : undefined;
      add(path, operation.method, {
        operationId: `${operation.name}${name}`,
        tags: [tag],
        summary: operation.summary,
        description: `${operation.summary} (${entityReference(entity)}, ${entity.scope}).`,
        security,
        parameters,
        ...(body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: ref(body) } } } }),
        responses: responses(operation, { description: 'Success.', content: { 'application/json': { schema: ref(answer) } } }),
      });
    }
  }
  if (settings.audit) {
    for (const operation of GOVERNED_OPERATIONS.filter((entry) => entry.service === undefined)) {
      const path = `/v1/audit${TARGET_SUFFIX[operation.target]}`;
      const parameters = operation.target === 'auditItem' ? [uuidParam('auditId', 'Audit record id.')] : queryParameters(operation);
      add(path, operation.method, {
        operationId: operation.name,
        tags: ['audit'],
        summary: operation.summary,
        description: 'Needs `audit:read`. A tenant-wide role reads the whole tenant; otherwise the records of the workspaces where you hold a role.',
        security,
        parameters,
        responses: responses(operation, {
          description: 'Success.',
          content: { 'application/json': { schema: ref(operation.answer === 'audit' ? 'AuditAnswer' : 'AuditPage') } },
        }),
      });
      // The export shares the list's path: the same GET asked for NDJSON, with its own query.
      if (operation.target === 'audit') Object.assign(paths[`${settings.basePath}${path}`]![operation.method.toLowerCase()]!, auditExportDoc(operation));
    }
  }
  const tags = [
    ...resources.map((resource) => ({ name: resource.resourceName, description: `${resource.entity.name} (${entityReference(resource.entity)})` })),
    ...(settings.audit ? [{ name: 'audit' }] : []),
  ];
  return {
    openapi: '3.1.0',
    info: {
      title: settings.title ?? 'cellgate governed resources',
      version: settings.version ?? '1.0.0',
      description: 'Governed REST resources: optimistic concurrency, soft delete, audit, rollback. Errors use the envelope `{ error, message, details? }`.',
    },
    tags,
    paths,
    components: { schemas, securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  };
}

/** Query parameters of an operation other than a list, from its query schema. */
/**
 * What the export adds to `GET /v1/audit`: its parameters and the NDJSON answer (one `AuditRecord`
 * per line). `from` and `to` are listed as optional, as the JSON page refuses them.
 */
function auditExportDoc(operation: GovernedOperation): Json {
  const exportOnly = queryParameters({ ...operation, query: () => AuditExportQuerySchema }).filter(
    (parameter) => parameter.name === 'from' || parameter.name === 'to',
  );
  return {
    description:
      'Needs `audit:read`. A tenant-wide role reads the whole tenant; otherwise the records of the workspaces where you hold a role. ' +
      'With `Accept: application/x-ndjson` it is the export (docs/audit-export.md): every record with `from <= occurredAt < to`, oldest first, unpaged, one JSON record per line; `from` and `to` are required there, `limit`/`cursor`/`resourceId` are not accepted. ' +
      'The whole tenant is exported only for the tenant-wide `admin` role; anyone else exports the workspaces where they hold a role.',
    parameters: [...queryParameters(operation), ...exportOnly.map((parameter) => ({ ...parameter, required: false }))],
    responses: responses(operation, {
      description: 'Success: a page of records (JSON), or the export (NDJSON).',
      content: { 'application/json': { schema: ref('AuditPage') }, 'application/x-ndjson': { schema: ref('AuditRecord') } },
    }),
  };
}

function queryParameters(operation: GovernedOperation): Json[] {
  const schema = operation.query({ fields: {} });
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, field]) => {
    const inner = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
    const { $schema: _drop, description, ...json } = z.toJSONSchema(inner, { io: 'input', unrepresentable: 'any' }) as Json;
    return param(name, 'query', json, (description as string | undefined) ?? z.globalRegistry.get(field)?.description, !field.safeParse(undefined).success);
  });
}
