/**
 * Cross-field rules of the entity definition document that a structural schema cannot express:
 * field names, base fields by scope, descriptor coherence, and the data block.
 */
import type { ValidationIssue } from '../validation/results.ts';
import { BASE_FIELDS, forbiddenBaseFields, isBaseField } from './base-fields.ts';
import { checkFieldDefault } from './field-default.ts';
import { checkFieldPermissions } from './field-permissions.ts';
import { SNAKE_CASE, type EntityDefinitionDocument, type EntityFilterOperator, type FieldDescriptor } from './schema.ts';

// Base fields lists may filter and sort on besides business fields.
const LISTABLE_BASE_FIELDS = new Set(['id', 'created_at', 'updated_at', 'created_by', 'updated_by']);

/** Operators that make sense for a field, by type and format. */
export function operatorsFor(field: FieldDescriptor): readonly EntityFilterOperator[] {
  if (field.type === 'string') {
    if (field.format === 'date-time') return ['equals', 'in', 'before', 'after', 'between'];
    if (field.format === 'uuid' || field.enum !== undefined) return ['equals', 'in'];
    return ['equals', 'in', 'contains', 'startsWith'];
  }
  if (field.type === 'integer' || field.type === 'number') return ['equals', 'in', 'gt', 'lt', 'between'];
  if (field.type === 'boolean') return ['equals'];
  return [];
}

function checkField(name: string, field: FieldDescriptor, issues: ValidationIssue[]): void {
  const at = `fields.${name}`;
  if (!SNAKE_CASE.test(name)) issues.push({ field: at, message: 'Field names must be snake_case' });
  if (field.format !== undefined && field.type !== 'string') issues.push({ field: `${at}.format`, message: 'format is only allowed on type "string"' });
  if (field.enum !== undefined) {
    if (field.type !== 'string') issues.push({ field: `${at}.enum`, message: 'enum is only allowed on type "string"' });
    if (new Set(field.enum).size !== field.enum.length) issues.push({ field: `${at}.enum`, message: 'enum values must be unique' });
  }
  const reference = field.references;
  if (reference !== undefined) {
    if (field.type !== 'string' || field.format !== 'uuid')
      issues.push({ field: `${at}.references`, message: 'references is only allowed on type "string" with format "uuid"' });
    if (reference.on_delete === 'set_null' && !field.nullable)
      issues.push({ field: `${at}.references.on_delete`, message: 'set_null needs a nullable field (add "nullable": true)' });
  }
  if (field.redact !== undefined) {
    if (field.type !== 'string') issues.push({ field: `${at}.redact`, message: 'redact is only allowed on type "string" (free text)' });
    if (field.sensitive || field.credential)
      issues.push({ field: `${at}.redact`, message: 'redact does not combine with sensitive or credential (those never keep a value)' });
  }
  checkFieldDefault(at, field, issues);
}

/** `renamed_from` names a former field: snake_case, not a field or base field of the document, and claimed by one field only. */
function checkRenames(doc: EntityDefinitionDocument, issues: ValidationIssue[]): void {
  const claimed = new Map<string, string>();
  for (const [name, field] of Object.entries(doc.fields)) {
    const from = field.renamed_from;
    if (from === undefined) continue;
    const at = `fields.${name}.renamed_from`;
    if (!SNAKE_CASE.test(from)) issues.push({ field: at, message: `"${from}" must be a snake_case field name` });
    else if (Object.hasOwn(doc.fields, from) || isBaseField(from))
      issues.push({ field: at, message: `"${from}" is still a field of this entity; a renamed field's former name must be gone` });
    else if (claimed.has(from)) issues.push({ field: at, message: `"${from}" is already the former name of "${claimed.get(from)}"` });
    claimed.set(from, name);
  }
}

function checkBaseField(name: string, field: FieldDescriptor, scope: EntityDefinitionDocument['scope'], issues: ValidationIssue[]): void {
  const at = `fields.${name}`;
  if (forbiddenBaseFields(scope).includes(name)) {
    issues.push({ field: at, message: `${name} is not allowed for scope ${scope}` });
    return;
  }
  const expected = BASE_FIELDS[name];
  if (expected === undefined) return;
  if (field.type !== expected.type) issues.push({ field: `${at}.type`, message: `Base field ${name} must have type "${expected.type}"` });
  if (field.format !== expected.format)
    issues.push({
      field: `${at}.format`,
      message: expected.format === undefined ? `Base field ${name} takes no format` : `Base field ${name} must have format "${expected.format}"`,
    });
  if (field.nullable !== expected.nullable)
    issues.push({ field: `${at}.nullable`, message: `Base field ${name} must have nullable ${String(expected.nullable)}` });
  if (
    field.optional ||
    field.sensitive ||
    field.credential ||
    field.enum !== undefined ||
    field.redact !== undefined ||
    field.references !== undefined ||
    field.default !== undefined ||
    field.renamed_from !== undefined
  ) {
    issues.push({ field: at, message: `Base field ${name} takes only type, format, nullable and description` });
  }
}

/**
 * The descriptor of field `name`: the document's own, else a base field's. Own members only: the
 * names come from the document (`constructor` would otherwise find Object.prototype's).
 */
function fieldNamed(doc: EntityDefinitionDocument, name: string): FieldDescriptor | undefined {
  if (Object.hasOwn(doc.fields, name)) return doc.fields[name];
  return isBaseField(name) ? BASE_FIELDS[name] : undefined;
}

function listableField(doc: EntityDefinitionDocument, name: string, at: string, issues: ValidationIssue[]): FieldDescriptor | undefined {
  if (!SNAKE_CASE.test(name)) {
    issues.push({ field: at, message: `"${name}" must be a snake_case field name` });
    return undefined;
  }
  const field = Object.hasOwn(doc.fields, name) || LISTABLE_BASE_FIELDS.has(name) ? fieldNamed(doc, name) : undefined;
  if (field === undefined || (isBaseField(name) && !LISTABLE_BASE_FIELDS.has(name))) {
    issues.push({ field: at, message: `"${name}" is not a field of this entity` });
    return undefined;
  }
  if (field.type === 'object' || field.type === 'array') {
    issues.push({ field: at, message: `"${name}" has type ${field.type}, which cannot be filtered or sorted` });
    return undefined;
  }
  return field;
}

function checkDataBlock(doc: EntityDefinitionDocument, issues: ValidationIssue[]): void {
  const data = doc.data;
  if (data === undefined) return;
  const filtering = data.filtering;
  if (filtering !== undefined) {
    filtering.allowedFields.forEach((name, index) => {
      listableField(doc, name, `data.filtering.allowedFields.${index}`, issues);
    });
    for (const [name, operators] of Object.entries(filtering.operators)) {
      const at = `data.filtering.operators.${name}`;
      if (!filtering.allowedFields.includes(name)) {
        issues.push({ field: at, message: `"${name}" is not in data.filtering.allowedFields` });
        continue;
      }
      const field = fieldNamed(doc, name);
      if (field === undefined) continue;
      const sensible = operatorsFor(field);
      operators.forEach((operator, index) => {
        if (!sensible.includes(operator))
          issues.push({ field: `${at}.${index}`, message: `Operator "${operator}" does not apply to "${name}"; use one of: ${sensible.join(', ')}` });
      });
    }
  }
  data.searching?.fields.forEach((name, index) => {
    const at = `data.searching.fields.${index}`;
    const field = listableField(doc, name, at, issues);
    if (field !== undefined && (field.type !== 'string' || field.format === 'date-time' || field.credential)) {
      issues.push({ field: at, message: `"${name}" must be a text field to be searched` });
    }
  });
  const sorting = data.sorting;
  if (sorting !== undefined) {
    sorting.allowedFields.forEach((name, index) => {
      listableField(doc, name, `data.sorting.allowedFields.${index}`, issues);
    });
    const fallback = sorting.default;
    if (fallback !== undefined && !sorting.allowedFields.includes(fallback.field) && fallback.field !== 'created_at' && fallback.field !== 'updated_at') {
      issues.push({ field: 'data.sorting.default.field', message: `"${fallback.field}" is not in data.sorting.allowedFields` });
    }
  }
}

/** Semantic issues of a structurally valid document (empty when it is valid). */
export function checkEntityRules(doc: EntityDefinitionDocument): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [name, field] of Object.entries(doc.fields)) {
    if (isBaseField(name)) checkBaseField(name, field, doc.scope, issues);
    else checkField(name, field, issues);
  }
  if (!Object.keys(doc.fields).some((name) => !isBaseField(name))) {
    issues.push({ field: 'fields', message: 'Define at least one business field' });
  }
  checkDataBlock(doc, issues);
  checkRenames(doc, issues);
  issues.push(...checkFieldPermissions(doc.fields));
  return issues;
}
