/**
 * Property tests (fast-check): validation never throws and `valid` ⇔ no errors, for arbitrary JSON
 * and for randomly mutated manifests; normalization is idempotent and its output validates.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { getExample, listExamples, normalizeManifest, validateEntity, validateManifest, validatePage, type ValidationResult } from 'cellgate';
import { CellManifestSchema } from 'cellgate/schemas';
import { parseOptions, toValidationIssues } from '../../../src/contract/schema/messages.ts';
import { compileQuickCheck } from '../../../src/contract/schema/quick-check.ts';
import { documentBoundsIssue, validationResult } from '../../../src/validation/bounds.ts';
import { allRules } from '../../../src/contract/validate/rules/index.ts';
import { manifestTargets, runRules } from '../../../src/contract/validate/run-rules.ts';
import { crmManifest } from './validate-fixtures.ts';

type Json = unknown;

function wellFormed(result: ValidationResult): boolean {
  const shape = result.errors.every(
    (error) => typeof error.field === 'string' && error.field !== '' && typeof error.message === 'string' && error.message !== '',
  );
  return shape && result.valid === (result.errors.length === 0);
}

/** Every path (array of keys) of a JSON document, the root excluded. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const entries = Array.isArray(value) ? value.map((item, index) => [index, item] as const) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

type Mutation = { path: (string | number)[]; action: 'delete' | 'set'; value: Json };

function mutate(doc: Json, { path, action, value }: Mutation): Json {
  const copy = structuredClone(doc) as Record<string | number, Json>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  const last = path[path.length - 1] as string | number;
  if (action === 'delete') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = value;
  return copy;
}

const crmPaths = pathsOf(crmManifest());
const mutation = fc.record({
  path: fc.constantFrom(...crmPaths),
  action: fc.constantFrom<'delete' | 'set'>('delete', 'set'),
  value: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('', 'x', '/x', 'customer', 'lead', 'Bad-Key', 'id', 'entity-list', 'belongs_to')),
});
const mutatedManifest = fc.array(mutation, { minLength: 1, maxLength: 4 }).map((mutations) =>
  mutations.reduce<Json>((doc, m) => {
    try {
      return mutate(doc, m);
    } catch {
      return doc; // the path vanished through an earlier mutation
    }
  }, crmManifest()),
);

/** Valid manifests: the CRM fixture with optional parts left out. */
const validManifest = fc
  .record({ entities: fc.boolean(), roles: fc.boolean(), navigation: fc.boolean(), appShell: fc.boolean(), governance: fc.boolean() })
  .map((keep) => {
    const doc = crmManifest() as ReturnType<typeof crmManifest> & { spec: Record<string, unknown> };
    if (!keep.roles) delete (doc.spec as { roles?: unknown }).roles;
    if (!keep.navigation) delete (doc.spec as { navigation?: unknown }).navigation;
    if (!keep.governance) for (const entity of doc.spec.entities) delete (entity as { governance?: unknown }).governance;
    if (keep.appShell) {
      doc.spec.appShell = {
        key: 'shell',
        name: 'Shell',
        layout: { mode: 'minimal' },
        regions: [{ key: 'main', enabled: true }],
        outlet: { type: 'page', region: 'main' },
      };
    }
    if (!keep.entities) {
      (doc.spec as { entities?: unknown }).entities = undefined;
      delete (doc.spec as { entities?: unknown }).entities;
      doc.spec.pages = doc.spec.pages.filter((page) => !('entity' in page) && page.key !== 'customer_detail' && page.key !== 'invoice_list');
      if (keep.navigation) (doc.spec as { navigation?: unknown }).navigation = { items: [{ type: 'page', key: 'nav_dashboard', pageKey: 'dashboard' }] };
    }
    return doc;
  });

describe('validation properties', () => {
  it('never throws on arbitrary JSON, and valid ⇔ errors empty', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        for (const validate of [validateManifest, validateEntity, validatePage, normalizeManifest]) expect(wellFormed(validate(value))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on mutated manifests, and valid ⇔ errors empty', () => {
    fc.assert(
      fc.property(mutatedManifest, (doc) => {
        expect(wellFormed(validateManifest(doc))).toBe(true);
        const normalized = normalizeManifest(doc);
        expect(wellFormed(normalized)).toBe(true);
        expect('manifest' in normalized).toBe(normalized.valid);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on deeply nested input', () => {
    let nested: Json = { key: 'leaf', type: 'string', name: 'Leaf' };
    for (let i = 0; i < 20_000; i++) nested = { key: 'o', type: 'object', name: 'O', fields: [nested] };
    const result = validateEntity({ key: 'deep', name: 'Deep', pluralName: 'Deep', fields: [nested] });
    expect(result.valid).toBe(false);
    expect(wellFormed(result)).toBe(true);
  });

  it('normalize is idempotent and a normalized valid manifest validates', () => {
    fc.assert(
      fc.property(validManifest, (doc) => {
        expect(validateManifest(doc)).toEqual({ valid: true, errors: [] });
        const once = normalizeManifest(doc);
        if (!once.valid) throw new Error(JSON.stringify(once.errors));
        expect(validateManifest(once.manifest)).toEqual({ valid: true, errors: [] });
        expect(normalizeManifest(once.manifest)).toEqual(once);
      }),
      { numRuns: 100 },
    );
  });

  it('normalize is idempotent on every mutated manifest that stays valid', () => {
    fc.assert(
      fc.property(mutatedManifest, (doc) => {
        const once = normalizeManifest(doc);
        if (!once.valid) return;
        expect(normalizeManifest(once.manifest)).toEqual(once);
      }),
      { numRuns: 200 },
    );
  });
});

/** What validateManifest answered before the compiled fast path: zod, then the rules on zod's output. */
function zodPathResult(doc: unknown) {
  const bounded = documentBoundsIssue(doc);
  if (bounded) return validationResult([bounded]);
  const parsed = CellManifestSchema.safeParse(doc, parseOptions);
  return validationResult(parsed.success ? runRules(allRules, manifestTargets(parsed.data)) : toValidationIssues(parsed.error.issues));
}

// Both back ends: generated code (taken where the runtime allows it) and closures (elsewhere).
describe.each(['source', 'closures'] as const)('the compiled quick check of validateManifest (%s)', (backend) => {
  const quick = compileQuickCheck(CellManifestSchema, { backend });

  it('proves the fixture, every example manifest and every optional variant valid (the fast path is taken)', () => {
    expect(quick(crmManifest())).toBe(true);
    const manifests = listExamples().filter((example) => example.key.endsWith('-manifest'));
    expect(manifests.map((example) => example.key)).toEqual(expect.arrayContaining(['minimal-manifest', 'crm-manifest']));
    for (const { key } of manifests) expect(quick(getExample(key))).toBe(true);
    fc.assert(
      fc.property(validManifest, (doc) => {
        expect(quick(doc)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('never proves what zod refuses, and validateManifest answers exactly as the zod path does', () => {
    fc.assert(
      fc.property(fc.oneof(mutatedManifest, mutatedManifest, fc.jsonValue()), (doc) => {
        if (quick(doc)) expect(CellManifestSchema.safeParse(doc, parseOptions).success).toBe(true);
        expect(validateManifest(doc)).toEqual(zodPathResult(doc));
      }),
      { numRuns: 600 },
    );
  });

  it.each<[string, (m: any) => void, boolean]>([
    ['an unknown key in a strict object', (m) => (m.spec.mount.extra = 1), false],
    ['an unknown key in a stripping object (a field) is accepted, as zod strips it', (m) => (m.spec.entities[0].fields[0].extra = 1), true],
    ['a float where an integer is required', (m) => (m.spec.pages[0].menu = { order: 1.5 }), false],
    ['an unsafe integer', (m) => (m.spec.pages[0].menu = { order: 2 ** 60 }), false],
    ['a non-finite number', (m) => (m.spec.pages[0].menu = { order: Infinity }), false],
    ['an own __proto__ key in a record', (m) => (m.spec.entities[0].fieldPolicies = JSON.parse('{"__proto__":{"view":{"scope":"public"}}}')), false],
    [
      'a class instance where an object is expected',
      (m) =>
        (m.spec.mount = new (class {
          mountPath = '/x';
          landingPage = 'dashboard';
        })()),
      false,
    ],
    ['an unknown discriminator', (m) => (m.spec.entities[0].relations[0].relation = 'many'), false],
    ['a page path without "/"', (m) => (m.spec.pages[0].path = 'x'), false],
    ['an explicit undefined optional member', (m) => (m.spec.appShell = undefined), true],
    // The object check walks the value's own keys once; a required member must still be counted.
    ['an explicit undefined required member', (m) => (m.spec.pages[0].title = undefined), false],
    ['a missing required member', (m) => delete m.metadata.name, false],
    ['an own __proto__ key in a strict object', (m) => (m.spec.mount = JSON.parse('{"mountPath":"/x","landingPage":"dashboard","__proto__":{}}')), false],
  ])('%s', (_name, change, proven) => {
    const doc = crmManifest();
    change(doc);
    expect(quick(doc)).toBe(proven);
    if (proven) expect(CellManifestSchema.safeParse(doc, parseOptions).success).toBe(true);
    expect(validateManifest(doc)).toEqual(zodPathResult(doc));
  });
});
