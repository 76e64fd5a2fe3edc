/**
 * The standalone entity definition document (docs/contract-conventions.md#standalone-entity-definition-document,
 * docs/decisions/B01.md): the snake_case document a team writes to define one governed entity. One zod
 * schema for validation, types and JSON Schema; cross-field rules live in `rules.ts`.
 */
import { z } from 'zod';
import { list } from '../validation/list.ts';
import { FieldDefaultSchema } from './field-default.ts';
import { FieldPermissionsSchema } from './field-permissions.ts';

/** Filter operators a data block may declare (docs/contract-conventions.md#standalone-entity-definition-document data block). */
export const FILTER_OPERATORS = ['equals', 'in', 'contains', 'startsWith', 'before', 'after', 'between', 'gt', 'lt'] as const;

/**
 * JSON value types of a standalone document's field descriptor. Not the manifest's eight UI field
 * types (`MANIFEST_FIELD_TYPES` in the contract schema): the two documents type fields differently.
 */
export const DOCUMENT_VALUE_TYPES = ['string', 'integer', 'number', 'boolean', 'object', 'array'] as const;

/** String formats of a descriptor. */
export const FIELD_FORMATS = ['uuid', 'date-time', 'email', 'url'] as const;

/** snake_case identifier: a field name, a key segment, a table segment. */
export const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const PASCAL_CASE = /^[A-Z][A-Za-z0-9]*$/;
const ENTITY_KEY = /^[a-z][a-z0-9]*(_[a-z0-9]+)*\.[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
// Semver 2.0.0 (https://semver.org), pre-release and build metadata included.
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** How a reference answers the delete of the record it points at (docs/decisions/B30.md). */
export const ON_DELETE_ACTIONS = ['restrict', 'cascade', 'set_null'] as const;
// An entity key, optionally pinned to a major: `pm.project` or `pm.project@v2`.
const REFERENCE_TARGET = /^[a-z][a-z0-9]*(_[a-z0-9]+)*\.[a-z][a-z0-9]*(_[a-z0-9]+)*(@v(0|[1-9][0-9]{0,5}))?$/;

/** What a `uuid` field points at: another entity of the same API (docs/entities.md#relations, docs/decisions/B29.md). */
export const FieldReferenceSchema = z
  .strictObject({
    entity: z
      .string()
      .max(200, { error: 'Must be at most 200 characters' })
      .regex(REFERENCE_TARGET, { error: 'Must be an entity key, optionally with its major (e.g. "pm.project" or "pm.project@v2")' })
      .describe('Key of the referenced entity of the same API; `@v<major>` is required when the API serves several majors of it.'),
    on_delete: z
      .enum(ON_DELETE_ACTIONS)
      .default('restrict')
      .describe(
        'On delete of the referenced record: `restrict` refuses it (409 REFERENCED), `cascade` soft-deletes the referencing records, `set_null` clears the field (nullable fields only).',
      ),
  })
  .meta({ id: 'EntityFieldReference' });

const roleList = list(z.string().min(1, { error: 'Must not be empty' })).describe('Role names (workspace-relative; tenant-wide roles count everywhere).');

/**
 * One field descriptor. Beyond docs/contract-conventions.md's properties (type, format, description, nullable,
 * optional, sensitive, enum), cellgate adds two audit redaction controls (docs/decisions/B09.md):
 * `redact` for free text and `credential` for secrets.
 */
export const FieldDescriptorSchema = z
  .strictObject({
    type: z.enum(DOCUMENT_VALUE_TYPES).describe('JSON type of the value.'),
    format: z.enum(FIELD_FORMATS).optional().describe('String format; only on `type: "string"`. `date-time` values are normalised to ISO 8601 UTC.'),
    description: z.string().optional(),
    permissions: FieldPermissionsSchema.optional(),
    nullable: z.boolean().default(false).describe('The value may be null.'),
    optional: z.boolean().default(false).describe('The field may be absent on create.'),
    sensitive: z.boolean().default(false).describe('Sensitive personal data: audit keeps only path and operation, never the value.'),
    enum: list(z.string()).min(1, { error: 'Must list at least one value' }).optional().describe('Allowed values; only on `type: "string"`.'),
    redact: z
      .enum(['hash', 'length'])
      .optional()
      .describe(
        'Free text (type string, not sensitive): audit keeps a keyed HMAC-SHA256 stable per tenant (`hash`) or the length (`length`) instead of the content.',
      ),
    credential: z
      .boolean()
      .default(false)
      .describe('A credential or secret: never stored in audit diffs, snapshots or logs in any form (implies `sensitive`).'),
    default: FieldDefaultSchema.optional(),
    renamed_from: z
      .string()
      .max(63)
      .optional()
      .describe('Former name of the field (snake_case): `migrate` plans a rename of its column, not a drop and an add.'),
    references: FieldReferenceSchema.optional().describe('Only on `format: "uuid"`: the field holds the id of a record of another entity.'),
  })
  .meta({ id: 'EntityFieldDescriptor' });

/** The optional declarative data block: filtering, searching, sorting. */
export const DataBlockSchema = z
  .strictObject({
    filtering: z
      .strictObject({
        allowedFields: list(z.string()).default([]).describe('Fields lists may filter on (snake_case, defined in `fields`).'),
        operators: z
          .record(z.string(), list(z.enum(FILTER_OPERATORS)).min(1, { error: 'Must list at least one operator' }))
          .default({})
          .describe('Operators per filterable field; a field without an entry allows `equals`.'),
      })
      .optional(),
    searching: z.strictObject({ fields: list(z.string()).default([]).describe('String fields `q` searches (case-insensitive contains).') }).optional(),
    sorting: z
      .strictObject({
        allowedFields: list(z.string()).default([]).describe('Fields lists may sort by, besides created_at and updated_at.'),
        default: z.strictObject({ field: z.string(), direction: z.enum(['asc', 'desc']) }).optional(),
      })
      .optional(),
  })
  .meta({ id: 'EntityDataBlock' });

/** The standalone entity definition document, snake_case (docs/contract-conventions.md). */
export const EntityDocumentSchema = z
  .strictObject({
    $schema: z
      .string()
      .regex(/\/entity-definition\/v1\.json$/, { error: 'Must be a schema URI ending in /entity-definition/v1.json' })
      .describe('Schema URI `{schema_base}/entity-definition/v1.json`.'),
    name: z.string().regex(PASCAL_CASE, { error: 'Must be PascalCase (e.g. "Invoice")' }).describe('PascalCase entity name.'),
    key: z.string().regex(ENTITY_KEY, { error: 'Must be domain.snake_case_key (e.g. "crm.invoice")' }).describe('`domain.snake_case_key`.'),
    version: z
      .string()
      .regex(SEMVER, { error: 'Must be a semver version (e.g. "1.0.0")' })
      .describe('Semver contract version; the major names the entity reference `@v<major>`.'),
    description: z.string(),
    scope: z.enum(['system-global', 'workspace-shared', 'cell-isolated']),
    governance_tier: z.enum(['tier-1', 'tier-2', 'tier-3']),
    permissions: z.strictObject({ view: roleList, edit: roleList, admin: roleList }).describe('Role lists per access level.'),
    fields: z.record(z.string(), FieldDescriptorSchema).describe('Field name (snake_case) → descriptor. Base fields may be omitted; they are added by scope.'),
    data: DataBlockSchema.optional(),
  })
  .meta({ id: 'EntityDefinitionDocument' });

/** One field descriptor, defaults applied. */
export type FieldDescriptor = z.output<typeof FieldDescriptorSchema>;
/** A field descriptor as written (defaults optional). */
export type FieldDescriptorInput = z.input<typeof FieldDescriptorSchema>;
/** A field's reference, defaults applied. */
export type FieldReference = z.output<typeof FieldReferenceSchema>;
/** What a reference does when its target is deleted. */
export type OnDeleteAction = (typeof ON_DELETE_ACTIONS)[number];
/** A data block, defaults applied. */
export type DataBlock = z.output<typeof DataBlockSchema>;
/** An entity definition document as written. */
export type EntityDocumentInput = z.input<typeof EntityDocumentSchema>;
/** A validated entity definition document (defaults applied, base fields present). Frozen by `defineEntity`. */
export type EntityDefinitionDocument = z.output<typeof EntityDocumentSchema>;
/** Filter operator name. */
export type EntityFilterOperator = (typeof FILTER_OPERATORS)[number];
