/**
 * The governed operation table: every governed HTTP operation as one declarative entry (method,
 * path below the scope prefix, zod schemas of its query, headers and body, the service operation
 * it calls, the error codes it can answer). The router, request parsing and the OpenAPI document
 * all read this table; the service parses its programmatic callers with the same schemas.
 */
import { z } from 'zod';
import { validationError, type ErrorCode } from '../../errors.ts';
import { MAX_DATE_TIME_LENGTH } from '../../limits.ts';
import { normalizeDateTime } from '../codec.ts';
import type { EntityScope } from '../../storage/types.ts';
import { listParamsOfQuery, listParamsSchema, PreferCountSchema, type ListableEntity } from '../list-query.ts';
import type { ServiceOperationName } from '../service.ts';
import {
  BodyObjectSchema,
  HistoryParamsSchema,
  historyPaging,
  IdempotencyKeySchema,
  IfMatchSchema,
  RollbackBodySchema,
  parseInput,
  UuidSchema,
  VersionTextSchema,
} from '../service-schemas.ts';
import { includeSchema } from '../relations/include.ts';
import { AsOfSchema, AuditFieldSchema, ChangesQuerySchema, VersionAtQuerySchema, VersionRefSchema } from '../time-travel/schemas.ts';

/** Where an operation's path sits below the prefix of its scope. */
export type OperationTarget = 'collection' | 'item' | 'rollback' | 'versions' | 'version' | 'changes' | 'audit' | 'auditItem';

/** Path suffix of each target below the resource (`{id}` is the record id). */
export const TARGET_SUFFIX: Record<OperationTarget, string> = {
  collection: '',
  item: '/{id}',
  rollback: '/{id}/rollback',
  versions: '/{id}/versions',
  version: '/{id}/versions/{version}',
  changes: '/{id}/changes',
  audit: '',
  auditItem: '/{auditId}',
};

/** Path prefix of each scope (docs/decisions/B03.md); the tenant always comes from the token. */
export const SCOPE_PREFIX: Record<EntityScope, string> = {
  'system-global': '/v1',
  'workspace-shared': '/v1/workspaces/{workspaceId}',
  'cell-isolated': '/v1/workspaces/{workspaceId}/cells/{cellId}',
};

/** The parts of a request an entry turns into its operation's input (everything but the body). */
export interface RequestParts {
  /** The `{id}` / `{auditId}` path segment, already lower-cased and checked as a UUID. */
  id: string;
  /** The `{version}` path segment of `…/{id}/versions/{version}`, as given (the entry parses it). */
  version?: string;
  /** Query parameters as one object of strings (a repeated name was refused before). */
  query: Record<string, unknown>;
  /** The `headers` the entry reads, by lower-case name. */
  headers: Record<string, string | undefined>;
}

/** One governed operation. */
export interface GovernedOperation {
  /** OpenAPI operation id suffix (prefixed with the resource's camelCase name). */
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  target: OperationTarget;
  summary: string;
  /** Entity-level operations call a service operation; tenant-level ones (audit) run on storage. */
  service?: ServiceOperationName;
  /** The query schema (per entity for lists). */
  query(entity: ListableEntity): z.ZodType;
  /** Turns the query string into the object the schema reads. @default one string per name, a repeated name refused */
  queryObject?: (params: URLSearchParams) => Record<string, unknown>;
  /** The headers read, by lower-case name. */
  headers?: z.ZodObject;
  /** The body schema; the body is read only after access is granted. */
  body?: z.ZodType;
  /** Success status. @default 200 */
  status?: 200 | 201;
  /** Whether the answer is one record (with `ETag`), a record page, or a history page. */
  answer: 'record' | 'list' | 'history' | 'audit' | 'changes';
  /** Error codes it can answer besides the generic ones of every governed route. */
  errors: ErrorCode[];
  /** The operation's input from the parsed parts. */
  input(parts: RequestParts): Record<string, unknown>;
  /** Headers of a successful answer that depend on the input (e.g. `Preference-Applied`). */
  answerHeaders?: (input: Record<string, unknown>) => Record<string, string>;
}

const NoQuery = z.strictObject({});
const noQuery = () => NoQuery;
const IfMatchHeader = z.object({ 'if-match': IfMatchSchema.optional() });
const HistoryQuery = () => HistoryParamsSchema.strict();
const versionsOf = ({ headers, query }: RequestParts) => ({
  ...(headers['if-match'] === undefined ? {} : { ifMatch: headers['if-match'] }),
  ...(query.expectedVersion === undefined ? {} : { expectedVersion: query.expectedVersion }),
});

/** Errors every governed route can answer (authentication, access, rate limit, validation, faults). */
export const COMMON_ERRORS: ErrorCode[] = [
  'VALIDATION_ERROR',
  'BAD_REQUEST',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'PLAN_RESTRICTION',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
];
const WRITE_ERRORS: ErrorCode[] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

/** The audit query of `GET /v1/audit` (docs/decisions/B08.md). */
export const AuditQuerySchema = HistoryParamsSchema.extend({
  resourceType: z
    .string()
    .max(200)
    .regex(/^[a-z][a-z0-9_]*\.[A-Z][A-Za-z0-9]*@v\d+$/, 'resourceType must be an entity reference such as crm.Invoice@v1')
    .optional()
    .describe('Entity reference, e.g. `crm.Invoice@v1`.'),
  resourceId: UuidSchema.optional().describe('Only the history of this record.'),
  workspaceId: UuidSchema.optional().describe('Only this workspace (one where you hold a role, or any with a tenant-wide role).'),
  field: AuditFieldSchema.optional(),
  changeSetId: UuidSchema.optional().describe('Only the records written by this change set (`api.transaction`, a cascade).'),
}).strict();

/** A bound of an audit export's range: an RFC 3339 date-time (or a date, midnight UTC), normalised to UTC. */
const ExportInstantSchema = (name: 'from' | 'to') =>
  z
    .string({
      error: (issue) => (issue.input === undefined ? `${name} is required for an export: an RFC 3339 date-time` : `${name} must be an RFC 3339 date-time`),
    })
    .max(MAX_DATE_TIME_LENGTH, `${name} must be an RFC 3339 date-time`)
    .transform(
      (value, ctx) =>
        normalizeDateTime(value) ?? (ctx.addIssue({ code: 'custom', message: `${name} must be an RFC 3339 date-time, e.g. 2026-01-01T00:00:00Z` }), z.NEVER),
    );

/**
 * The query of `GET /v1/audit` with `Accept: application/x-ndjson` (the export): records with
 * `from <= occurredAt < to`, oldest first, unpaged (docs/audit-export.md).
 */
export const AuditExportQuerySchema = z
  .strictObject({
    from: ExportInstantSchema('from').describe('Export only (and required there): first instant included, RFC 3339 date-time.'),
    to: ExportInstantSchema('to').describe('Export only (and required there): first instant no longer included, RFC 3339 date-time, not before `from`.'),
    resourceType: AuditQuerySchema.shape.resourceType,
    workspaceId: AuditQuerySchema.shape.workspaceId,
  })
  .refine((query) => query.from <= query.to, { path: ['to'], message: 'to must not be before from' });

/** Every governed operation. */
export const GOVERNED_OPERATIONS: readonly GovernedOperation[] = [
  {
    name: 'list',
    method: 'GET',
    target: 'collection',
    summary: 'List records (filters, sorting, search, paging)',
    service: 'listAt',
    query: (entity) => listParamsSchema(entity),
    queryObject: listParamsOfQuery,
    headers: z.object({ prefer: PreferCountSchema.optional() }),
    answer: 'list',
    errors: ['TIME_TRAVEL_DISABLED'],
    input: ({ query, headers }) => ({ ...query, ...(headers.prefer === undefined ? {} : { count: headers.prefer }) }),
    answerHeaders: (input): Record<string, string> => (typeof input.count === 'string' ? { 'preference-applied': `count=${input.count}` } : {}),
  },
  {
    name: 'create',
    method: 'POST',
    target: 'collection',
    summary: 'Create a record',
    service: 'create',
    query: noQuery,
    headers: z.object({ 'idempotency-key': IdempotencyKeySchema.optional() }),
    body: BodyObjectSchema,
    status: 201,
    answer: 'record',
    errors: [...WRITE_ERRORS, 'IDEMPOTENCY_KEY_REUSED', 'CONFLICT', 'BUSINESS_RULE_VIOLATION', 'REFERENCE_NOT_FOUND'],
    input: ({ headers }) => (headers['idempotency-key'] === undefined ? {} : { idempotencyKey: headers['idempotency-key'] }),
  },
  {
    name: 'get',
    method: 'GET',
    target: 'item',
    summary: 'Read one record (now, or as it was at an instant)',
    service: 'getAt',
    query: (entity) =>
      z.strictObject({
        includeDeleted: z
          .enum(['true', 'false'], 'includeDeleted must be true or false')
          .optional()
          .describe('Also return a soft-deleted record (admin access and the read permission).'),
        asOf: AsOfSchema.optional(),
        include: includeSchema(entity).optional(),
      }),
    answer: 'record',
    errors: ['TIME_TRAVEL_DISABLED', 'HISTORY_PURGED'],
    input: ({ id, query }) => {
      // A past state's references are answered as ids: the targets' own past is one read each away.
      if (query.asOf !== undefined && query.include !== undefined)
        throw validationError('include applies to the current record only.', [{ path: 'include', message: 'Not with asOf' }]);
      return {
        id,
        includeDeleted: query.includeDeleted === 'true',
        ...(query.asOf === undefined ? {} : { asOf: query.asOf }),
        ...(query.include === undefined ? {} : { include: query.include }),
      };
    },
  },
  {
    name: 'update',
    method: 'PATCH',
    target: 'item',
    summary: 'Update a record (merge or JSON Patch form)',
    service: 'update',
    query: noQuery,
    headers: IfMatchHeader,
    body: BodyObjectSchema,
    answer: 'record',
    errors: [...WRITE_ERRORS, 'CONFLICT', 'PRECONDITION_FAILED', 'BUSINESS_RULE_VIOLATION', 'REFERENCE_NOT_FOUND'],
    input: (parts) => ({ id: parts.id, ...versionsOf(parts) }),
  },
  {
    name: 'delete',
    method: 'DELETE',
    target: 'item',
    summary: 'Soft-delete a record',
    service: 'delete',
    query: () => z.strictObject({ expectedVersion: VersionTextSchema.optional() }),
    headers: IfMatchHeader,
    answer: 'record',
    errors: ['CONFLICT', 'PRECONDITION_FAILED', 'REFERENCED', 'BUSINESS_RULE_VIOLATION'],
    input: (parts) => ({ id: parts.id, ...versionsOf(parts) }),
  },
  {
    name: 'rollback',
    method: 'POST',
    target: 'rollback',
    summary: 'Roll back (or restore) a record to an earlier version',
    service: 'rollback',
    query: noQuery,
    headers: IfMatchHeader,
    body: BodyObjectSchema.pipe(RollbackBodySchema),
    answer: 'record',
    errors: [
      ...WRITE_ERRORS,
      'CONFLICT',
      'PRECONDITION_FAILED',
      'ROLLBACK_DISABLED',
      'INVALID_TARGET_VERSION',
      'BUSINESS_RULE_VIOLATION',
      'REFERENCE_NOT_FOUND',
    ],
    input: (parts) => ({ id: parts.id, ...versionsOf(parts) }),
  },
  {
    name: 'versions',
    method: 'GET',
    target: 'versions',
    summary: 'Versions of a record, newest first',
    service: 'versions',
    query: HistoryQuery,
    answer: 'history',
    errors: [],
    input: ({ id, query }) => ({ id, paging: historyPaging(query) }),
  },
  {
    name: 'versionAt',
    method: 'GET',
    target: 'version',
    summary: 'The record at one version',
    service: 'versionAt',
    query: () => VersionAtQuerySchema,
    answer: 'record',
    errors: ['TIME_TRAVEL_DISABLED', 'HISTORY_PURGED'],
    input: ({ id, version }) => ({ id, version: parseInput(VersionRefSchema, version, 'parameter', 'version') }),
  },
  {
    name: 'changes',
    method: 'GET',
    target: 'changes',
    summary: 'One JSON Patch between two versions of a record',
    service: 'changes',
    query: () => ChangesQuerySchema,
    answer: 'changes',
    errors: ['TIME_TRAVEL_DISABLED', 'HISTORY_PURGED'],
    input: ({ id, query }) => ({ id, from: query.from, to: query.to }),
  },
  {
    name: 'listAudit',
    method: 'GET',
    target: 'audit',
    summary: 'Audit records of the tenant, newest first',
    query: () => AuditQuerySchema,
    answer: 'history',
    errors: [],
    input: ({ query }) => query,
  },
  {
    name: 'getAudit',
    method: 'GET',
    target: 'auditItem',
    summary: 'One audit record',
    query: noQuery,
    answer: 'audit',
    errors: [],
    input: ({ id }) => ({ auditId: id }),
  },
];
