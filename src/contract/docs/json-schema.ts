/**
 * zod → JSON Schema for the OpenAPI document: every schema a route uses, plus every schema with a
 * `.meta({ id })` nested in them, becomes one entry of `components.schemas`. Request bodies are
 * converted as input (defaults optional), answers as output; when the two forms of a component
 * differ, the input form gets an `Input` suffix.
 */
import { z } from 'zod';

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/** Direction a schema is converted for. */
export type SchemaIo = 'input' | 'output';

const REF_PREFIX = '#/components/schemas/';

/** Registered ids of zod's global registry (the `.meta({ id })` of A, B and us). */
function globalSchemaById(id: string): z.ZodType | undefined {
  const idmap = (z.globalRegistry as unknown as { _idmap?: Map<string, z.ZodType> })._idmap;
  return idmap?.get(id);
}

/** The id a schema was registered with, if any. */
export function schemaId(schema: z.ZodType): string | undefined {
  const id = z.globalRegistry.get(schema)?.id;
  return typeof id === 'string' ? id : undefined;
}

function strip(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, id: _id, ...rest } = schema;
  return rest;
}

/** Converts `roots` (name → schema) plus every id'd schema they reach, for one direction. */
function convertAll(roots: Map<string, z.ZodType>, io: SchemaIo): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of roots) registry.add(schema, { id: name });
  for (;;) {
    const { schemas } = z.toJSONSchema(registry, { io, unrepresentable: 'any', uri: (id) => `${REF_PREFIX}${id}` }) as {
      schemas: Record<string, JsonSchema>;
    };
    // Nested schemas with an id the registry does not hold land in "__shared"; add them and redo.
    const shared = (schemas.__shared as { $defs?: Record<string, unknown> } | undefined)?.$defs;
    if (!shared) return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, strip(schema)]));
    for (const id of Object.keys(shared)) {
      const schema = globalSchemaById(id);
      if (!schema) throw new Error(`OpenAPI: schema "${id}" is referenced but not registered`);
      registry.add(schema, { id });
    }
  }
}

function refsOf(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) refsOf(item, found);
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)) found.add(value.slice(REF_PREFIX.length));
      else refsOf(value, found);
    }
  }
  return found;
}

function renameRefs(schema: unknown, rename: (name: string) => string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => renameRefs(item, rename));
  if (schema && typeof schema === 'object') {
    return Object.fromEntries(
      Object.entries(schema).map(([key, value]) =>
        key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)
          ? [key, `${REF_PREFIX}${rename(value.slice(REF_PREFIX.length))}`]
          : [key, renameRefs(value, rename)],
      ),
    );
  }
  return schema;
}

/**
 * Collects the schemas of a document, then builds `components.schemas` in one go.
 *
 * @example
 * const c = new ComponentCollector();
 * const body = c.use(RequestSchema, 'input', 'validateManifestRequest');
 * const components = c.build(); // then body.ref() is `{ $ref: '#/components/schemas/…' }`
 */
export class ComponentCollector {
  private readonly roots: Record<SchemaIo, Map<string, z.ZodType>> = { input: new Map(), output: new Map() };
  private renamedInputs = new Set<string>();

  /** Registers `schema` (named by its id, else `fallbackName`); call `ref()` after {@link build}. */
  use(schema: z.ZodType, io: SchemaIo, fallbackName: string): { ref: () => JsonSchema } {
    const name = schemaId(schema) ?? fallbackName;
    const existing = this.roots[io].get(name);
    if (existing && existing !== schema) throw new Error(`OpenAPI: two schemas named "${name}"`);
    this.roots[io].set(name, schema);
    return { ref: () => ({ $ref: `${REF_PREFIX}${this.finalName(name, io)}` }) };
  }

  private finalName(name: string, io: SchemaIo): string {
    return io === 'input' && this.renamedInputs.has(name) ? `${name}Input` : name;
  }

  /** All components, output forms under their id, differing input forms as `<id>Input`. */
  build(): Record<string, JsonSchema> {
    const output = convertAll(this.roots.output, 'output');
    const input = convertAll(this.roots.input, 'input');
    // An input form is renamed when it differs from the output form, or refers to one that is.
    const renamed = new Set(Object.keys(input).filter((name) => output[name] !== undefined && JSON.stringify(input[name]) !== JSON.stringify(output[name])));
    for (let grew = true; grew; ) {
      grew = false;
      for (const name of Object.keys(input)) {
        if (renamed.has(name) || output[name] === undefined) continue;
        if ([...refsOf(input[name])].some((ref) => renamed.has(ref))) {
          renamed.add(name);
          grew = true;
        }
      }
    }
    this.renamedInputs = renamed;
    const components: Record<string, JsonSchema> = { ...output };
    for (const [name, schema] of Object.entries(input)) {
      if (output[name] !== undefined && !renamed.has(name)) continue;
      components[this.finalName(name, 'input')] = renameRefs(schema, (ref) => this.finalName(ref, 'input')) as JsonSchema;
    }
    return components;
  }
}
