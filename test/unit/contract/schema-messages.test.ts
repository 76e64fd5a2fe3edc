/** Structural (zod) problems: the project's stable wording and dot paths (docs/decisions/A02.md, docs/decisions/A03.md). */
import { describe, expect, it } from 'vitest';
import { validateManifest, validatePage, validateEntity } from 'cellgate';
import { CellManifestSchema } from 'cellgate/schemas';
import { crmManifest } from './validate-fixtures.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- documents are edited as plain JSON
type Doc = any;

const errorsOf = (input: unknown) => validateManifest(input).errors.map(({ field, message }) => `${field}: ${message}`);

function broken(edit: (m: Doc) => void): string[] {
  const doc = crmManifest() as Doc;
  edit(doc);
  return errorsOf(doc);
}

describe('structural messages', () => {
  it('a missing member is `Required`, including apiVersion and kind', () => {
    expect(errorsOf({})).toEqual(['apiVersion: Required', 'kind: Required', 'metadata: Required', 'spec: Required']);
  });

  it('a wrong literal names the expected literal', () => {
    expect(errorsOf({ apiVersion: 'wrong/version', kind: 'NotACell' })).toEqual([
      'apiVersion: Invalid literal value, expected "platform/v1alpha1"',
      'kind: Invalid literal value, expected "Cell"',
      'metadata: Required',
      'spec: Required',
    ]);
  });

  it('a document of the wrong type is reported at root', () => {
    expect(errorsOf('x')).toEqual(['root: Expected object, received string']);
    expect(errorsOf(null)).toEqual(['root: Expected object, received null']);
    expect(errorsOf([1])).toEqual(['root: Expected object, received array']);
    expect(errorsOf(7)).toEqual(['root: Expected object, received number']);
    expect(errorsOf(undefined)).toEqual(['root: Required']);
  });

  it('enum values list the choices and the received value', () => {
    expect(broken((m) => (m.spec.pages[0].type = 'zzz'))).toEqual([
      "spec.pages.0.type: Invalid enum value. Expected 'entity-list' | 'entity-detail' | 'entity-create' | 'entity-edit' | 'dashboard' | 'custom', received 'zzz'",
    ]);
    expect(broken((m) => (m.spec.entities[0].governance.tier = 4))).toEqual([
      "spec.entities.0.governance.tier: Expected 'tier-1' | 'tier-2' | 'tier-3', received number",
    ]);
  });

  it('unknown keys of strict objects are listed at the object path', () => {
    expect(broken((m) => Object.assign(m.spec.pages[1], { extra: 1, other: 2 }))).toEqual(["spec.pages.1: Unrecognized key(s) in object: 'extra', 'other'"]);
    expect(broken((m) => (m.$schema = 'x'))).toEqual(["root: Unrecognized key(s) in object: '$schema'"]);
  });

  it('nested paths use numeric indexes', () => {
    expect(broken((m) => delete m.spec.entities[0].fields[1].key)).toEqual(['spec.entities.0.fields.1.key: Required']);
    expect(broken((m) => (m.spec.entities[0].fields[4].fields[2].fields[0].name = ''))).toEqual([
      'spec.entities.0.fields.4.fields.2.fields.0.name: String must contain at least 1 character(s)',
    ]);
    expect(broken((m) => (m.spec.navigation.items[1].children[0].pageKey = 3))).toEqual([
      'spec.navigation.items.1.children.0.pageKey: Expected string, received number',
    ]);
  });

  it('discriminated unions name their valid tags, or say Required when the tag is missing', () => {
    expect(broken((m) => (m.spec.entities[0].relations[0].relation = 'one_to_one'))).toEqual([
      "spec.entities.0.relations.0.relation: Invalid discriminator value. Expected 'belongs_to' | 'has_many' | 'many_to_many' | 'self' | 'polymorphic'",
    ]);
    expect(broken((m) => delete m.spec.entities[0].relations[0].relation)).toEqual(['spec.entities.0.relations.0.relation: Required']);
    expect(broken((m) => (m.spec.navigation.items[0].type = 'link'))).toEqual([
      "spec.navigation.items.0.type: Invalid discriminator value. Expected 'page' | 'group'",
    ]);
  });

  it('capability types require their own member and refuse the others (docs/decisions/A05.md)', () => {
    expect(broken((m) => delete m.spec.entities[0].capabilities[0].transition)).toEqual(['spec.entities.0.capabilities.0.transition: Required']);
    expect(broken((m) => (m.spec.entities[0].capabilities[3] = { key: 'sync_erp', type: 'integration', provider: 'erp' }))).toEqual([
      'spec.entities.0.capabilities.3.target: Required',
      "spec.entities.0.capabilities.3: Unrecognized key(s) in object: 'provider'",
    ]);
    expect(broken((m) => (m.spec.entities[0].capabilities[2].format = 'docx'))).toEqual([
      "spec.entities.0.capabilities.2.format: Invalid enum value. Expected 'pdf' | 'csv' | 'xlsx' | 'json', received 'docx'",
    ]);
  });

  it('array and string minimums, integers and snake_case keys', () => {
    expect(broken((m) => (m.spec.entities[0].lifecycle.states = []))).toEqual(['spec.entities.0.lifecycle.states: Array must contain at least 1 element(s)']);
    expect(broken((m) => (m.metadata.name = ''))).toEqual(['metadata.name: String must contain at least 1 character(s)']);
    expect(broken((m) => (m.spec.pages[1].menu.order = 1.5))).toEqual(['spec.pages.1.menu.order: Expected integer, received float']);
    expect(broken((m) => (m.spec.entities[1].key = 'Contact'))).toEqual([
      'spec.entities.1.key: Must start with a lowercase letter and contain only lowercase letters, digits, or underscores (e.g. "customer_order")',
    ]);
  });

  it('accepts an entity description, empty navigation items and an empty fields list', () => {
    expect(broken((m) => (m.spec.navigation = { items: [] }))).toEqual([]);
    expect(validateEntity({ key: 'tag', name: 'Tag', pluralName: 'Tags', description: 'A label.', fields: [] })).toEqual({ valid: true, errors: [] });
  });

  it('a page missing members reports each one', () => {
    expect(validatePage({ key: 'x' }).errors).toEqual([
      { field: 'type', message: 'Required' },
      { field: 'title', message: 'Required' },
      { field: 'path', message: 'Required' },
    ]);
  });

  it('`__proto__` keys are data: refused by strict objects, never polluting prototypes', () => {
    const doc = JSON.parse(JSON.stringify(crmManifest()).replace('"kind":"Cell"', '"kind":"Cell","__proto__":{"polluted":true}'));
    expect(errorsOf(doc)).toEqual(["root: Unrecognized key(s) in object: '__proto__'"]);
    const withOptions = JSON.parse(JSON.stringify(crmManifest()).replace('"layout":"wide"', '"layout":"wide","__proto__":{"polluted":true}'));
    expect(validateManifest(withOptions).valid).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('the schema parses with defaults filled', () => {
    const parsed = CellManifestSchema.parse(crmManifest());
    expect(parsed.spec.entities?.[2]?.governance).toEqual({ tier: 'tier-2', rollbackEnabled: true });
    expect(parsed.spec.pages?.[2]?.dataContext).toEqual({ entityKey: 'customer', idParam: 'id' });
  });
});
