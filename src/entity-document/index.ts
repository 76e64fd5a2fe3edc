/**
 * The standalone entity definition document: schema, validation, `defineEntity`, and the storage
 * model a driver receives (docs/decisions/B01.md, docs/decisions/B02.md).
 */
import { ConfigurationError } from '../errors.ts';
import type { ValidationIssue, ValidationResult } from '../validation/results.ts';
import type { EntityStorageModel, StorageField } from '../storage/types.ts';
import { BASE_FIELDS, isBaseField, requiredBaseFields } from './base-fields.ts';
import { toValidationIssues } from './issues.ts';
import { documentBoundsIssue, validationResult } from '../validation/bounds.ts';
import { installIssueBudget, issueBudget } from '../validation/issue-budget.ts';
import { checkEntityRules } from './rules.ts';
import { referenceFieldNames } from './references.ts';
import type { EntityDefinition, EntityDocumentShape, EntityTypes, EntityTypesOf, WidenedEntityDocument } from './record-type.ts';
import { EntityDocumentSchema, type EntityDefinitionDocument } from './schema.ts';
import { linkUpgrade, type UpgradeFrom } from './upgrade-link.ts';

export * from './schema.ts';
export { FieldPermissionsSchema, type FieldPermissions } from './field-permissions.ts';
export { DEFAULT_GENERATORS, defaultValue, isDefaultGenerator, type DefaultGenerator } from './default-value.ts';
export { FieldDefaultSchema, type FieldDefault } from './field-default.ts';
export { upgradeLinkOf, type UpgradeFrom, type UpgradeLink, type UpgradeRecord } from './upgrade-link.ts';
export type * from './record-type.ts';
export { BASE_FIELDS, isBaseField, requiredBaseFields } from './base-fields.ts';
export { operatorsFor } from './rules.ts';
export { filteringOf, referenceFieldNames, type Filtering } from './references.ts';
export { camelToSnake, pluralize, resourcePathName, snakeToCamel } from './naming.ts';

installIssueBudget(EntityDocumentSchema);

type Parsed = { document: EntityDefinitionDocument; errors: [] } | { document: undefined; errors: ValidationIssue[] };

// JSON.parse keeps `__proto__` as an own key; zod's record parsing would turn it into a prototype.
function prototypeKeys(value: unknown, path: string[], found: ValidationIssue[]): ValidationIssue[] {
  if (value === null || typeof value !== 'object' || path.length > 8) return found;
  for (const key of Object.keys(value)) {
    const at = [...path, key];
    if (key === '__proto__') found.push({ field: at.join('.'), message: 'Field names must be snake_case' });
    else prototypeKeys((value as Record<string, unknown>)[key], at, found);
  }
  return found;
}

function parse(input: unknown): Parsed {
  const tooBig = documentBoundsIssue(input);
  if (tooBig) return { document: undefined, errors: [tooBig] };
  const polluting = prototypeKeys(input, [], []);
  if (polluting.length > 0) return { document: undefined, errors: polluting };
  const result = EntityDocumentSchema.safeParse(input, { reportInput: true, ...issueBudget });
  if (!result.success) return { document: undefined, errors: toValidationIssues(result.error.issues) };
  const errors = checkEntityRules(result.data);
  if (errors.length > 0) return { document: undefined, errors };
  const fields = { ...result.data.fields };
  const withBase: EntityDefinitionDocument['fields'] = {};
  for (const name of requiredBaseFields(result.data.scope)) withBase[name] = fields[name] ?? { ...BASE_FIELDS[name]! };
  for (const [name, field] of Object.entries(fields)) if (!Object.hasOwn(withBase, name)) withBase[name] = field;
  return { document: { ...result.data, fields: withBase }, errors: [] };
}

/**
 * Checks an entity definition document. Never throws, whatever the input; lists at most 100
 * issues (`errorsOmitted` counts the rest).
 *
 * @example
 * validateEntityDocument({ name: 'invoice' }).errors[0]; // { field: '$schema', message: 'Required' }
 */
export function validateEntityDocument(input: unknown): ValidationResult {
  return validationResult(parse(input).errors);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * Validates an entity definition document and returns it frozen, defaults applied and missing base
 * fields added by scope. Throws a {@link ConfigurationError} naming the first bad path.
 *
 * @example defineEntity
 * import { defineEntity } from 'cellgate';
 *
 * export const Invoice = defineEntity({
 *   $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
 *   name: 'Invoice',
 *   key: 'crm.invoice',
 *   version: '1.0.0',
 *   description: 'A customer invoice',
 *   scope: 'cell-isolated',
 *   governance_tier: 'tier-2',
 *   permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
 *   fields: { amount: { type: 'number' } },
 * });
 */
export function defineEntity<const D extends EntityDocumentShape>(document: D): EntityDefinition<EntityTypesOf<D>>;
/**
 * A new major linked to the previous one (docs/evolving-entities.md#majors-and-upgrades): `up`
 * receives a record of `from` and returns a record of this major; `down`, optional, the way back
 * for clients pinned to the older major. Throws a {@link ConfigurationError} when `from` is not a
 * lower major of the same key.
 *
 * @example
 * const InvoiceV2 = defineEntity(invoiceV2Document, {
 *   from: InvoiceV1,
 *   up: (v1) => ({ amountCents: Math.round(v1.amount * 100) }),
 *   down: (v2) => ({ amount: v2.amountCents / 100 }),
 * });
 */
export function defineEntity<const D extends EntityDocumentShape, From>(
  document: D,
  upgrade: UpgradeFrom<From, EntityTypesOf<D>>,
): EntityDefinition<EntityTypesOf<D>>;
export function defineEntity(document: EntityDocumentShape, upgrade?: UpgradeFrom<unknown, EntityTypes>): EntityDefinition {
  const entity = checkedEntity(document);
  if (upgrade !== undefined) linkUpgrade(entity, upgrade);
  return entity;
}

/**
 * The documented path for a document known only at run time (a JSON or YAML file, a database
 * row): validated exactly like {@link defineEntity}, typed with the general record
 * (`{ [field: string]: unknown }`) since its field types cannot be known when compiling.
 *
 * @example
 * import customerDocument from './customer.entity.json' with { type: 'json' };
 * const Customer = loadEntity(customerDocument);
 */
export function loadEntity(document: WidenedEntityDocument | unknown): EntityDefinition {
  return checkedEntity(document);
}

function checkedEntity(document: unknown): EntityDefinitionDocument {
  const parsed = parse(document);
  if (parsed.document === undefined) {
    const first = parsed.errors[0]!;
    const path = first.field === 'root' ? 'entity' : `entity.${first.field}`;
    const more =
      parsed.errors.length > 1
        ? ` (and ${parsed.errors.length - 1} more: ${parsed.errors
            .slice(1)
            .map((e) => `entity.${e.field}`)
            .join(', ')})`
        : '';
    throw new ConfigurationError(path, `${first.message}${more}`);
  }
  return deepFreeze(parsed.document);
}

/** The major number of a semver version string. */
export function majorVersion(document: Pick<EntityDefinitionDocument, 'version'>): number {
  return Number.parseInt(document.version, 10);
}

/** Entity reference `<domain>.<EntityName>@v<major>`, e.g. `crm.Invoice@v1` (the audit `resourceType`). */
export function entityReference(document: Pick<EntityDefinitionDocument, 'key' | 'name' | 'version'>): string {
  const domain = document.key.split('.')[0]!;
  return `${domain}.${document.name}@v${majorVersion(document)}`;
}

/** `referenceFields` of the storage model: the business fields that declare `references` (none: absent, so older models keep their shape). */
function referenceFieldsOf(document: EntityDefinitionDocument): { referenceFields?: string[] } {
  const names = referenceFieldNames(document);
  return names.length === 0 ? {} : { referenceFields: names };
}

/**
 * The storage model a driver receives: `crm.Invoice@v1` in table `crm_invoice_v1`, business fields
 * in document order, indexed fields from the data block plus `created_at` and `updated_at`.
 */
export function toStorageModel(document: EntityDefinitionDocument): EntityStorageModel {
  const fields: StorageField[] = Object.entries(document.fields)
    .filter(([name]) => !isBaseField(name))
    .map(([name, field]) => ({
      name,
      type: field.type,
      ...(field.format === undefined ? {} : { format: field.format }),
      nullable: field.nullable,
      required: !field.optional && !field.nullable,
      ...(field.enum === undefined ? {} : { enum: field.enum }),
      ...(field.default === undefined ? {} : { default: field.default }),
      ...(field.renamed_from === undefined ? {} : { renamedFrom: field.renamed_from }),
    }));
  const indexed = new Set<string>();
  for (const name of document.data?.filtering?.allowedFields ?? []) indexed.add(name);
  for (const name of document.data?.sorting?.allowedFields ?? []) indexed.add(name);
  indexed.add('created_at');
  indexed.add('updated_at');
  return {
    resourceType: entityReference(document),
    table: `${document.key.replace('.', '_')}_v${majorVersion(document)}`,
    scope: document.scope,
    fields,
    indexedFields: [...indexed].filter((name) => name !== 'id'),
    ...referenceFieldsOf(document),
  };
}
