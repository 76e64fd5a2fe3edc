/**
 * The quick check's two back ends (generated code, closures) against each other and against zod,
 * on documents generated from the modelled shape itself, so every member of every schema is
 * exercised, including parts no example uses (validation rules, computed fields, layouts).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { z } from 'zod';
import { CellManifestSchema, EntityDefinitionSchema, PageDefinitionSchema } from 'cellgate/schemas';
import { parseOptions } from '../../../src/contract/schema/messages.ts';
import { compileQuickCheck } from '../../../src/contract/schema/quick-check.ts';
import { readShape, type Condition, type Shape } from '../../../src/contract/schema/quick-check-shape.ts';
import { mcpTools } from '../../../src/contract/mcp/tools/index.ts';
import { ValidateManifestRequestSchema } from '../../../src/contract/services.ts';
import { crmManifest } from './validate-fixtures.ts';
import { valueNestingDepth } from '../../../src/http/json.ts';
import { MAX_JSON_DEPTH } from '../../../src/limits.ts';

type Json = unknown;

/** Bounds of a size from its conditions (lengths of strings and arrays, values of numbers). */
function sizeBounds(conditions: readonly Condition[]): { min: number; max: number } {
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  for (const condition of conditions) {
    if (condition.kind === 'atLeast' || condition.kind === 'exactly') min = Math.max(min, condition.value);
    if (condition.kind === 'above') min = Math.max(min, condition.value + 1);
    if (condition.kind === 'atMost' || condition.kind === 'exactly') max = Math.min(max, condition.value);
    if (condition.kind === 'below') max = Math.min(max, condition.value - 1);
  }
  return { min, max };
}

/**
 * Values that mostly match `shape`: every optional member sometimes present, every union option
 * and tag sometimes taken, strings from their patterns. Cycles stop at `depth` 0 (the value may
 * then be wrong, which the comparisons welcome).
 */
function arbitraryOf(shape: Shape, depth = 14): fc.Arbitrary<Json> {
  if (depth === 0) return fc.constant(null);
  const next = (inner: Shape) => arbitraryOf(inner, depth - 1);
  switch (shape.kind) {
    case 'never':
    case 'unknown':
      return fc.jsonValue({ maxDepth: 2 });
    case 'string': {
      const pattern = shape.conditions.find((condition) => condition.kind === 'pattern');
      const { min, max } = sizeBounds(shape.conditions);
      const maxLength = Math.min(max, min + 12);
      const text = pattern?.kind === 'pattern' ? fc.stringMatching(pattern.pattern) : fc.string({ minLength: min, maxLength });
      return text.filter((value) => value.length >= min && value.length <= max);
    }
    case 'number': {
      const { min, max } = sizeBounds(shape.conditions);
      const bounded = shape.conditions.some((condition) => ['atLeast', 'above', 'exactly'].includes(condition.kind));
      const integer = shape.conditions.some((condition) => condition.kind === 'safeInteger');
      const low = bounded ? min : -5;
      const high = Number.isFinite(max) ? max : low + 1000;
      return integer ? fc.integer({ min: Math.ceil(low), max: Math.floor(high) }) : fc.double({ min: low, max: high, noNaN: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'oneOf':
      return fc.constantFrom(...shape.values);
    case 'optional':
      // Near the depth limit, optional parts are left out and lists stay at their minimum, so
      // recursive schemas end in valid leaves.
      return depth <= 3 ? fc.constant(undefined) : fc.option(arbitraryOf(shape.inner, depth), { nil: undefined });
    case 'nullable':
      return fc.option(arbitraryOf(shape.inner, depth), { nil: null });
    case 'array': {
      const { min, max } = sizeBounds(shape.conditions);
      return fc.array(next(shape.element), { minLength: min, maxLength: depth <= 3 ? min : Math.min(max, min + 2) });
    }
    case 'object': {
      const members = Object.fromEntries(shape.members.map((member) => [member.key, next(member.shape)]));
      const requiredKeys = shape.members.filter((member) => !member.optional).map((member) => member.key);
      return fc.record(members, { requiredKeys });
    }
    case 'record':
      return fc.dictionary(next(shape.key) as fc.Arbitrary<string>, next(shape.value), { maxKeys: 2 });
    case 'union':
      return fc.oneof(...shape.options.map(next));
    case 'tagged':
      return fc.oneof(...[...new Set(shape.options.values())].map(next));
  }
}

/** Every path (array of keys) of a JSON document, the root excluded. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const entries = Array.isArray(value) ? value.map((item, index) => [index, item] as const) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

/** Each document with one of its member paths (`undefined` for a document without members). */
function withAPath(documents: fc.Arbitrary<Json>): fc.Arbitrary<[Json, (string | number)[] | undefined]> {
  return documents.chain((doc) => {
    const paths = pathsOf(doc);
    return fc.tuple(fc.constant(doc), paths.length > 0 ? fc.constantFrom(...paths) : fc.constant(undefined));
  });
}

/** `doc` with the member at `path` set to `value` (a deep copy; the path must exist). */
function replaced(doc: Json, path: (string | number)[], value: Json): Json {
  const copy = structuredClone(doc) as Record<string | number, Json>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  parent[path[path.length - 1]!] = value;
  return copy;
}

/** Values of every JSON kind, and edge values of each. */
const replacements: Json[] = [undefined, null, true, false, 0, -1, 1.5, 2 ** 60, '', 'x', '/x', [], [1], {}, { x: 1 }];

describe.each<[string, z.ZodType]>([
  ['CellManifestV1', CellManifestSchema],
  ['EntityDefinition', EntityDefinitionSchema],
  ['PageDefinition', PageDefinitionSchema],
  ['the validate-manifest request body', ValidateManifestRequestSchema],
])('the quick check of %s', (_name, schema) => {
  const source = compileQuickCheck(schema, { backend: 'source' });
  const closures = compileQuickCheck(schema, { backend: 'closures' });
  const documents = arbitraryOf(readShape(schema));

  /** Both back ends give the same answer, and a proven document is one zod accepts. */
  function judge(doc: Json): boolean {
    const proven = source(doc);
    expect(closures(doc)).toBe(proven);
    if (proven) expect(schema.safeParse(doc, parseOptions).success).toBe(true);
    return proven;
  }

  it('agrees between back ends and with zod on documents generated from the schema', () => {
    let proven = 0;
    fc.assert(
      fc.property(documents, (doc) => {
        if (judge(doc)) proven++;
      }),
      { numRuns: 400 },
    );
    // Most generated documents are valid, so the comparison above covers the proving side too.
    expect(proven).toBeGreaterThan(100);
  });

  it('agrees on the same documents with one member replaced by a value of another kind', () => {
    let refused = 0;
    fc.assert(
      fc.property(fc.tuple(withAPath(documents), fc.constantFrom(...replacements)), ([[doc, path], value]) => {
        if (path && !judge(replaced(doc, path, value))) refused++;
      }),
      { numRuns: 600 },
    );
    expect(refused).toBeGreaterThan(100);
  });
});

// Exact mode (the MCP direct path hands a proven value to the tool in place of zod's output): a
// proven value must equal zod's output, and both back ends must agree.
describe.each<[string, z.ZodType]>([
  ['CellManifestV1', CellManifestSchema],
  ...mcpTools.map((tool): [string, z.ZodType] => [`the arguments of ${tool.name}`, tool.input]),
])('the exact quick check of %s', (_name, schema) => {
  const source = compileQuickCheck(schema, { backend: 'source', exact: true });
  const closures = compileQuickCheck(schema, { backend: 'closures', exact: true });
  const documents = arbitraryOf(readShape(schema));
  const withExtraKey = documents.map((doc) => (typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? { ...doc, extra: 1 } : doc));

  it('proves only values zod returns unchanged', () => {
    fc.assert(
      fc.property(fc.oneof(documents, withExtraKey), (doc) => {
        const proven = source(doc);
        expect(closures(doc)).toBe(proven);
        // Equal members (fast-check also builds null-prototype objects, which JSON never does).
        if (proven) expect(schema.parse(doc)).toEqual(doc);
      }),
      { numRuns: 200 },
    );
  });
});

/** A value `levels` deep: nested arrays or objects. */
function nested(levels: number, kind: 'array' | 'object'): Json {
  let value: Json = kind === 'array' ? [] : {};
  for (let i = 1; i < levels; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

/** `doc` with an own member `key` added beside the member at `path` (`__proto__` too, as JSON.parse makes it). */
function withMember(doc: Json, path: (string | number)[], key: string, value: Json): Json {
  const copy = structuredClone(doc) as Record<string | number, Json>;
  let parent = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, Json>;
  Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

// Bounded depth (the REST validation route skips its scan of the text for a proven body): proven
// exactly when the plain check proves the value and nothing in it nests deeper than the bound,
// whether the deep part sits in a described member, an unknown one or a key zod would strip.
describe.each<[string, z.ZodType]>([
  ['CellManifestV1', CellManifestSchema],
  ['the validate-manifest request body', ValidateManifestRequestSchema],
])('the depth-bounded quick check of %s', (_name, schema) => {
  const plain = compileQuickCheck(schema, { backend: 'source' });
  const bounded = compileQuickCheck(schema, { backend: 'source', maxDepth: MAX_JSON_DEPTH });
  const documents = arbitraryOf(readShape(schema));

  it('proves a value exactly when it is proven and within the bound', () => {
    let deepAndValid = 0;
    fc.assert(
      fc.property(
        fc.tuple(
          withAPath(documents),
          fc.constantFrom<string | undefined>(undefined, 'extra', '__proto__'),
          fc.integer({ min: 1, max: 70 }),
          fc.constantFrom<'array' | 'object'>('array', 'object'),
        ),
        ([[doc, path], extraKey, levels, kind]) => {
          let changed = doc;
          if (path) changed = extraKey === undefined ? replaced(doc, path, nested(levels, kind)) : withMember(doc, path, extraKey, nested(levels, kind));
          const within = valueNestingDepth(changed, MAX_JSON_DEPTH) <= MAX_JSON_DEPTH;
          if (plain(changed) && !within) deepAndValid++;
          const expected = plain(changed) && within;
          // An own `__proto__` key of a stripping object cannot be read by name, so that object is
          // not proven: there the check may only be stricter.
          if (extraKey === '__proto__') expect(!bounded(changed) || expected).toBe(true);
          else expect(bounded(changed)).toBe(expected);
        },
      ),
      { numRuns: 400 },
    );
    // Valid documents nested too deep occur, so the bound itself is exercised.
    expect(deepAndValid).toBeGreaterThan(5);
  });

  it('does not prove a stripping object with an own __proto__ key, whose value it cannot read', () => {
    const doc = structuredClone(schema === CellManifestSchema ? crmManifest() : { manifest: crmManifest() }) as Json;
    expect(bounded(doc)).toBe(true);
    const fields = ((schema === CellManifestSchema ? doc : (doc as { manifest: Json }).manifest) as ReturnType<typeof crmManifest>).spec.entities[0]!.fields;
    fields[0] = { ...fields[0]!, ...(JSON.parse(`{"__proto__":${JSON.stringify(nested(70, 'array'))}}`) as object) };
    expect(plain(doc)).toBe(true);
    expect(bounded(doc)).toBe(false);
  });

  it('refuses a value nested past the bound at its level without recursing', () => {
    expect(bounded({}, MAX_JSON_DEPTH + 1)).toBe(false);
    expect(bounded(nested(100_000, 'array'))).toBe(false);
  });
});

describe('the choice of back end', () => {
  const probe = (mode: 'jitless' | 'default') =>
    JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./quick-check-backend-probe.mjs', import.meta.url)), mode], {
        encoding: 'utf8',
      }),
    ) as { valid: boolean; generated: number };

  it('generates code where the runtime allows it, and uses closures under z.config({ jitless: true })', () => {
    expect(probe('default')).toEqual({ valid: true, generated: 1 });
    expect(probe('jitless')).toEqual({ valid: true, generated: 0 });
  });
});
