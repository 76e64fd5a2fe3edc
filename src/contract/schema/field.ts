/** `FieldDefinition`: one field of an entity, of eight types; object fields nest fields. */
import { z } from 'zod';
import { list, nonEmptyString, snakeKey } from './common.ts';

/** The eight field types of a manifest's entity fields (a standalone document types values as JSON: `DOCUMENT_VALUE_TYPES`). */
export const MANIFEST_FIELD_TYPES = ['string', 'text', 'number', 'boolean', 'date', 'datetime', 'enum', 'object'] as const;

/** A field type. */
export const FieldTypeSchema = z
  .enum(MANIFEST_FIELD_TYPES)
  .meta({ id: 'FieldType', description: 'string, text, number, boolean, date, datetime, enum or object.' });

/** How a value is displayed. */
export const FieldDisplaySchema = z
  .object({
    type: z
      .enum([
        'text',
        'multiline-text',
        'number',
        'currency',
        'percentage',
        'date',
        'datetime',
        'boolean',
        'status',
        'badge',
        'email',
        'phone',
        'url',
        'entity-link',
        'user',
        'avatar-name',
        'tags',
        'progress',
        'json-preview',
        'actions',
        'custom',
      ])
      .optional(),
    emptyLabel: z.string().optional(),
    truncate: z.boolean().optional(),
    tooltip: z.boolean().optional(),
    align: z.enum(['left', 'center', 'right']).optional(),
    currency: z.string().optional(),
    precision: z.int().min(0).max(6).optional(),
    labelField: z.string().optional(),
    subtitleField: z.string().optional(),
    route: z.string().optional(),
    badgeToneMap: z.record(z.string(), z.string()).optional(),
    statusMap: z.record(z.string(), z.string()).optional(),
    maxItems: z.int().positive().optional(),
    showOverflowCount: z.boolean().optional(),
    rendererKey: z.string().optional(),
  })
  .meta({ id: 'FieldDisplay', description: 'Display hints of a field value.' });

/** A client-side validation rule of a field. */
export const FieldRuleSchema = z
  .object({
    ruleId: nonEmptyString(),
    type: z.enum(['required', 'min_length', 'max_length', 'regex', 'enum', 'number_min', 'number_max', 'date', 'future_date', 'email']),
    field: nonEmptyString(),
    messageKey: nonEmptyString(),
    defaultMessage: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    clientSafe: z.boolean(),
    blocking: z.boolean(),
    severity: z.enum(['error', 'warning']),
  })
  .meta({ id: 'FieldRule', description: 'A declarative validation rule of a field.' });

const visibility = z.object({ visible: z.boolean().optional(), order: z.int().optional(), placeholder: z.string().optional() });

/** `FieldDefinition` (recursive through `fields` of object fields). */
export const FieldDefinitionSchema = z
  .object({
    key: snakeKey().describe('snake_case key, unique within its entity (or parent object field).'),
    type: FieldTypeSchema.describe('Field type.'),
    name: nonEmptyString().describe('Display name.'),
    description: z.string().optional().describe('What the field holds.'),
    required: z.boolean().optional().describe('Whether a value is required.'),
    enumValues: list(z.string()).optional().describe('Allowed values; required and non-empty for enum fields.'),
    system: z.boolean().optional().describe('Managed by the system, not by users.'),
    helpText: z.string().optional().describe('Help shown next to the input.'),
    smallTip: z.string().optional().describe('Short hint.'),
    readonly: z.boolean().optional().describe('Shown but not editable.'),
    sensitive: z.enum(['pii', 'secret', 'credential', 'token', 'binary-reference']).optional().describe('Sensitivity class; sensitive values are redacted.'),
    list: z
      .object({ visible: z.boolean().optional(), sortable: z.boolean().optional(), searchable: z.boolean().optional(), filterable: z.boolean().optional() })
      .optional()
      .describe('Behaviour in lists.'),
    form: z.object({ visible: z.boolean().optional(), placeholder: z.string().optional() }).optional().describe('Behaviour in forms.'),
    create: visibility.optional().describe('Behaviour in the create form.'),
    edit: visibility.optional().describe('Behaviour in the edit form.'),
    display: FieldDisplaySchema.optional().describe('Display hints.'),
    validation: z
      .object({ fieldRules: list(FieldRuleSchema).optional() })
      .optional()
      .describe('Field validation rules.'),
    get fields(): z.ZodOptional<z.ZodArray<typeof FieldDefinitionSchema>> {
      return list(FieldDefinitionSchema).optional().describe('Nested fields of an object field (at most 3 levels).');
    },
  })
  .meta({ id: 'FieldDefinition', description: 'A field of an entity. A field has at least key, type and name.' });

/** Inferred type of a field. */
export type FieldDefinition = z.infer<typeof FieldDefinitionSchema>;
/** A field type name. */
export type FieldType = (typeof MANIFEST_FIELD_TYPES)[number];
